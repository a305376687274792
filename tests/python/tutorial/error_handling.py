# Tutorial section 8.4: catching the driver's errors.
import cudakit.autoinit  # (added)
import cudakit.driver as drv
import numpy as np  # (added)


def safe_memcpy_htod(dest, src):
    try:
        drv.memcpy_htod(dest, src)
    except drv.LogicError as e:
        print(f"内存拷贝失败 (HtoD): {e}")
        # 检查dest, src的大小和类型
        raise
    except drv.Error as e:
        print(f"CUDA驱动错误: {e}")
        raise


if __name__ == "__main__":  # (added) 4 MB into a 16-byte allocation
    try:
        safe_memcpy_htod(drv.mem_alloc(16), np.zeros(1 << 20, dtype=np.float32))
    except drv.LogicError:
        print("refused, as it should be")
