// The tutorials' vector-add kernels, kept in one place so the examples, the
// demo and the doctor all run the same code.
#pragma once

namespace cudakit::workloads {

// The PyCUDA tutorial's kernel, verbatim. It has no bounds check, so it must
// be launched with exactly one thread per element (n a multiple of the block).
inline constexpr const char* pycuda_vec_add_source = R"(
// __global__ 声明这是一个GPU内核函数由CPU调用GPU执行
__global__ void vec_add(float *a, float *b, float *c) {
    // 计算当前线程的全局索引
    // blockIdx.x: 当前Block在Grid中的x方向索引
    // blockDim.x: 一个Block在x方向上的线程数即我们设置的threads_per_block
    // threadIdx.x: 当前线程在Block内的x方向索引
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // 用这个索引去操作对应的数组元素
    c[idx] = a[idx] + b[idx];
}
)";

// The Numba tutorial's add_kernel, translated from Python to CUDA C:
// cuda.grid(1) is blockIdx.x * blockDim.x + threadIdx.x, and the array's
// c.size becomes the explicit parameter n.
inline constexpr const char* numba_add_kernel_source = R"(
__global__ void add_kernel(const float *a, const float *b, float *c, int n) {
    // 计算当前线程的全局索引 (cuda.grid(1))
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // 检查索引是否越界因为线程总数可能大于数组长度 (if idx < c.size)
    if (idx < n) {
        c[idx] = a[idx] + b[idx];
    }
}
)";

// A vector add written as a template, for name expressions
// ("vec_add<float>"); needs CompileOptions::no_extern_c.
inline constexpr const char* templated_vec_add_source = R"(
template <typename T>
__global__ void vec_add(const T *a, const T *b, T *c, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        c[idx] = a[idx] + b[idx];
    }
}
)";

}  // namespace cudakit::workloads
