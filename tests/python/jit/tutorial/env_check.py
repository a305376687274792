# The tutorial's environment check ("终极验证"), its Numba part; the PyTorch
# lines after it check a different library and are left out.
import cudakit.cuda as cuda
print(cuda.gpus)  # 如果能看到GPU设备信息，说明CUDA Python基础环境OK
