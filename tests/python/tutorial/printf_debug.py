# Tutorial section 10, Q4: printf in a kernel, with a larger printf buffer.
import cudakit.driver as drv
from cudakit.compiler import SourceModule  # (added)

drv.init()
dev = drv.Device(0)
ctx = dev.make_context(printf_buffer_size=1024 * 1024)  # 1MB缓冲区

mod = SourceModule("""
__global__ void say_hello(int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) printf("hello from thread %d\\n", i);
}
""")  # (added) a kernel that prints
print("printf buffer:", drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE))
mod.get_function("say_hello")(3, block=(4, 1, 1), grid=(1, 1))
drv.Context.synchronize()
ctx.pop()
