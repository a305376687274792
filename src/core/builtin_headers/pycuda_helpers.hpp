// <pycuda-helpers.hpp> (also <cudakit-helpers.hpp>): PyCUDA's "double
// precision" texture helpers, built into cudakit for NVRTC and the CPU
// backend. PyCUDA's fp_tex1Dfetch/fp_tex2D/fp_tex3D/fp_tex2DLayered and
// fp_surf* overloads take texture and surface references, which CUDA 12
// removed (PyCUDA's own header then defines only the fp_tex_* typedefs).
// Here they take texture and surface objects, and the element type is the
// template argument (texture objects come from a GPU program's own runtime
// calls: cudakit itself creates none):
// fp_tex1Dfetch<double>(tex, i) reads a double stored as
// int2 texels, fp_tex2D<pycuda::complex<float> >(tex, x, y) a complex stored
// as uint2, and float/int/... are read as they are.
#ifndef CUDAKIT_PYCUDA_HELPERS_HPP
#define CUDAKIT_PYCUDA_HELPERS_HPP

#include <pycuda-complex.hpp>

extern "C++" {
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;

#ifndef __CUDAKIT_CPU__
namespace pycuda {
namespace texel {
// The texel type each element type is stored as, and the conversions.
template <class T>
struct storage {
  typedef T type;
  static __device__ T decode(T v) { return v; }
  static __device__ T encode(T v) { return v; }
};
template <>
struct storage<double> {
  typedef fp_tex_double type;
  static __device__ double decode(fp_tex_double v) { return __hiloint2double(v.y, v.x); }
  static __device__ fp_tex_double encode(double v) {
    return make_int2(__double2loint(v), __double2hiint(v));
  }
};
template <>
struct storage<complex<float> > {
  typedef fp_tex_cfloat type;
  static __device__ complex<float> decode(fp_tex_cfloat v) {
    return complex<float>(__int_as_float(int(v.x)), __int_as_float(int(v.y)));
  }
  static __device__ fp_tex_cfloat encode(complex<float> v) {
    return make_uint2(unsigned(__float_as_int(v._M_re)), unsigned(__float_as_int(v._M_im)));
  }
};
template <>
struct storage<complex<double> > {
  typedef fp_tex_cdouble type;
  static __device__ complex<double> decode(fp_tex_cdouble v) {
    return complex<double>(__hiloint2double(v.y, v.x), __hiloint2double(v.w, v.z));
  }
  static __device__ fp_tex_cdouble encode(complex<double> v) {
    return make_int4(__double2loint(v._M_re), __double2hiint(v._M_re), __double2loint(v._M_im),
                     __double2hiint(v._M_im));
  }
};
}  // namespace texel
}  // namespace pycuda

template <class T>
__device__ T fp_tex1Dfetch(cudaTextureObject_t tex, int i) {
  typedef pycuda::texel::storage<T> S;
  return S::decode(tex1Dfetch<typename S::type>(tex, i));
}
template <class T>
__device__ T fp_tex2D(cudaTextureObject_t tex, float i, float j) {
  typedef pycuda::texel::storage<T> S;
  return S::decode(tex2D<typename S::type>(tex, i, j));
}
template <class T>
__device__ T fp_tex2DLayered(cudaTextureObject_t tex, float i, float j, int layer) {
  typedef pycuda::texel::storage<T> S;
  return S::decode(tex2DLayered<typename S::type>(tex, i, j, layer));
}
template <class T>
__device__ T fp_tex3D(cudaTextureObject_t tex, float i, float j, float k) {
  typedef pycuda::texel::storage<T> S;
  return S::decode(tex3D<typename S::type>(tex, i, j, k));
}
// Surfaces: i is an element index (PyCUDA's helpers scale it to bytes).
template <class T>
__device__ void fp_surf2DLayeredwrite(T var, cudaSurfaceObject_t surf, int i, int j, int layer,
                                      enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  surf2DLayeredwrite(S::encode(var), surf, int(i * sizeof(typename S::type)), j, layer, mode);
}
template <class T>
__device__ void fp_surf2DLayeredread(T* var, cudaSurfaceObject_t surf, int i, int j, int layer,
                                     enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  typename S::type v;
  surf2DLayeredread(&v, surf, int(i * sizeof(typename S::type)), j, layer, mode);
  *var = S::decode(v);
}
template <class T>
__device__ void fp_surf3Dwrite(T var, cudaSurfaceObject_t surf, int i, int j, int k,
                               enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  surf3Dwrite(S::encode(var), surf, int(i * sizeof(typename S::type)), j, k, mode);
}
template <class T>
__device__ void fp_surf3Dread(T* var, cudaSurfaceObject_t surf, int i, int j, int k,
                              enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  typename S::type v;
  surf3Dread(&v, surf, int(i * sizeof(typename S::type)), j, k, mode);
  *var = S::decode(v);
}
#else
// The CPU backend has no textures or surfaces: a kernel that calls these
// stops at compile time with the alternative named.
namespace pycuda {
template <class T>
struct no_texture_on_cpu {
  static const bool value = false;
};
}  // namespace pycuda
#define CUDAKIT_FP_TEX_ON_CPU(NAME)                                                     \
  template <class T, class... Args>                                                     \
  T NAME(Args...) {                                                                     \
    static_assert(pycuda::no_texture_on_cpu<T>::value,                                  \
                  #NAME ": the CPU backend has no textures or surfaces; read the array " \
                        "through a pointer (const T* __restrict__ or __ldg), or run the "  \
                        "kernel on a GPU");                                             \
    return T();                                                                         \
  }
CUDAKIT_FP_TEX_ON_CPU(fp_tex1Dfetch)
CUDAKIT_FP_TEX_ON_CPU(fp_tex2D)
CUDAKIT_FP_TEX_ON_CPU(fp_tex2DLayered)
CUDAKIT_FP_TEX_ON_CPU(fp_tex3D)
#undef CUDAKIT_FP_TEX_ON_CPU
#define CUDAKIT_FP_SURF_ON_CPU(NAME)                                                    \
  template <class T, class... Args>                                                     \
  void NAME(T, Args...) {                                                               \
    static_assert(pycuda::no_texture_on_cpu<T>::value,                                  \
                  #NAME ": the CPU backend has no surfaces; write the array through a " \
                        "pointer, or run the kernel on a GPU");                         \
  }
CUDAKIT_FP_SURF_ON_CPU(fp_surf2DLayeredwrite)
CUDAKIT_FP_SURF_ON_CPU(fp_surf2DLayeredread)
CUDAKIT_FP_SURF_ON_CPU(fp_surf3Dwrite)
CUDAKIT_FP_SURF_ON_CPU(fp_surf3Dread)
#undef CUDAKIT_FP_SURF_ON_CPU
#endif
}  // extern "C++"

#endif  // CUDAKIT_PYCUDA_HELPERS_HPP
