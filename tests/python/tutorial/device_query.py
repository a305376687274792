# Tutorial sections 3 and 10 (Q2, Q5): the driver, the device and its compute capability.
import cudakit.driver as drv

drv.init()
print(f"Detected CUDA driver version: {drv.get_version()}")

# Q2: 先用Device(0).compute_capability()查询你的GPU计算能力
print("compute capability:", drv.Device(0).compute_capability())

# Q5: 获取设备数量
print(f"Number of GPUs: {drv.Device.count()}")

# (added) the queries section 4 points to: the block-size limit of the device.
dev = drv.Device(0)
print("name:", dev.name(), "memory:", dev.total_memory(),
      "max threads per block:", dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK))
