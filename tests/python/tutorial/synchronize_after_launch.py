# Tutorial section 8.4, its second fragment: synchronize after each launch
# that may fail, so the error is raised there. The tutorial's my_kernel(...)
# is completed (added) as a kernel whose thread 3 stops itself (__trap), so
# there is an error to catch; the try/except around it is added too.
import cudakit.autoinit  # (added)
import cudakit.driver as drv
from cudakit.compiler import SourceModule  # (added)

my_kernel = SourceModule("""
__global__ void my_kernel(int *flags)
{
    if (threadIdx.x == 3) __trap();
    flags[threadIdx.x] = 1;
}
""").get_function("my_kernel")  # (added)
flags = drv.mem_alloc(32 * 4)  # (added)
try:  # (added)
    # 或者更简单地在每个可能出错的内核启动后同步并检查错误
    my_kernel(flags, block=(32, 1, 1), grid=(1, 1))
    drv.Context.synchronize()  # 强制同步如果有错误会在此抛出
except drv.LaunchError as e:  # (added)
    print(f"caught {type(e).__name__}: {e}")
