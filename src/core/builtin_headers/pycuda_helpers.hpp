// <pycuda-helpers.hpp> (also <cudakit-helpers.hpp>): PyCUDA's "double
// precision" texture helpers, built into cudakit for NVRTC and the CPU
// backend. Texture and surface objects, on a GPU and on the CPU backend: the
// element type is the template argument: fp_tex1Dfetch<double>(tex, i) reads
// a double stored as int2 texels, fp_tex2D<pycuda::complex<float> >(tex, x, y)
// a complex stored as uint2, and float/int/... are read as they are. PyCUDA's
// own overloads on texture and surface references (texture<fp_tex_double, 2>
// ...), which CUDA 12 removed, exist on the CPU backend only, where
// references still compile.
#ifndef CUDAKIT_PYCUDA_HELPERS_HPP
#define CUDAKIT_PYCUDA_HELPERS_HPP

#include <pycuda-complex.hpp>

extern "C++" {
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;

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
#ifdef __CUDAKIT_CPU__
// PyCUDA's overloads on references: the texel type says what it holds.
namespace pycuda {
namespace texel {
template <class S>
struct value_of {
  typedef S type;
};
template <>
struct value_of<fp_tex_double> {
  typedef double type;
};
template <>
struct value_of<fp_tex_cfloat> {
  typedef complex<float> type;
};
template <>
struct value_of<fp_tex_cdouble> {
  typedef complex<double> type;
};
template <class S>
__device__ typename value_of<S>::type decode(S v) {
  return storage<typename value_of<S>::type>::decode(v);
}
}  // namespace texel
}  // namespace pycuda

template <class S, enum cudaTextureReadMode M>
__device__ typename pycuda::texel::value_of<S>::type fp_tex1Dfetch(texture<S, 1, M> tex, int i) {
  return pycuda::texel::decode(tex1Dfetch(tex, i));
}
template <class S, enum cudaTextureReadMode M>
__device__ typename pycuda::texel::value_of<S>::type fp_tex2D(texture<S, 2, M> tex, float i,
                                                              float j) {
  return pycuda::texel::decode(tex2D(tex, i, j));
}
template <class S, enum cudaTextureReadMode M>
__device__ typename pycuda::texel::value_of<S>::type fp_tex2DLayered(
    texture<S, cudaTextureType2DLayered, M> tex, float i, float j, int layer) {
  return pycuda::texel::decode(tex2DLayered(tex, i, j, layer));
}
template <class S, enum cudaTextureReadMode M>
__device__ typename pycuda::texel::value_of<S>::type fp_tex3D(texture<S, 3, M> tex, float i,
                                                              float j, float k) {
  return pycuda::texel::decode(tex3D(tex, i, j, k));
}
template <class T>
__device__ void fp_surf2DLayeredwrite(T var, surface<void, cudaSurfaceType2DLayered> surf, int i,
                                      int j, int layer, enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  surf2DLayeredwrite(S::encode(var), surf, int(i * sizeof(typename S::type)), j, layer, mode);
}
template <class T>
__device__ void fp_surf2DLayeredread(T* var, surface<void, cudaSurfaceType2DLayered> surf, int i,
                                     int j, int layer, enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  typename S::type v;
  surf2DLayeredread(&v, surf, int(i * sizeof(typename S::type)), j, layer, mode);
  *var = S::decode(v);
}
template <class T>
__device__ void fp_surf3Dwrite(T var, surface<void, 3> surf, int i, int j, int k,
                               enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  surf3Dwrite(S::encode(var), surf, int(i * sizeof(typename S::type)), j, k, mode);
}
template <class T>
__device__ void fp_surf3Dread(T* var, surface<void, 3> surf, int i, int j, int k,
                              enum cudaSurfaceBoundaryMode mode) {
  typedef pycuda::texel::storage<T> S;
  typename S::type v;
  surf3Dread(&v, surf, int(i * sizeof(typename S::type)), j, k, mode);
  *var = S::decode(v);
}
#endif
}  // extern "C++"

#endif  // CUDAKIT_PYCUDA_HELPERS_HPP
