# Tutorial section 10, Q5: choosing GPU 1 on a multi-GPU machine.
import cudakit.driver as drv

drv.init()
# 获取设备数量
print(f"Number of GPUs: {drv.Device.count()}")
# 选择1号GPU
dev = drv.Device(1)
ctx = dev.make_context()
try:
    # 在这里进行该GPU上的所有操作
    print("using", dev.name())
finally:
    ctx.pop()  # 非常重要退出时弹出上下文
