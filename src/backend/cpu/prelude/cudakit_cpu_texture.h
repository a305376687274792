// Textures and surfaces on the CPU backend (appended to the prelude): the
// texture and surface objects a kernel takes as cudaTextureObject_t /
// cudaSurfaceObject_t, and the texture<> / surface<> references CUDA 11 had.
// Both read one record (TextureRecord below): an object's handle is the
// record's address, a reference *is* a record, which the host writes when it
// binds the reference. Sampling follows the GPU as the CUDA C Programming
// Guide's appendix "Texture Fetching" describes it: the linear filter's
// weights are 9-bit fixed point with 8 fractional bits, wrap and mirror need
// normalized coordinates (the GPU clamps otherwise), 8- and 16-bit integers
// read as normalized floats unless read as integers, half reads as float.
#ifndef CUDAKIT_CPU_TEXTURE_H
#define CUDAKIT_CPU_TEXTURE_H

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2

static inline double __hiloint2double(int hi, int lo) {
  return ::cudakit_cpu::bit_cast<double>(
      (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
      static_cast<unsigned>(lo));
}
static inline int __double2hiint(double d) {
  return static_cast<int>(::cudakit_cpu::bit_cast<unsigned long long>(d) >> 32);
}
static inline int __double2loint(double d) {
  return static_cast<int>(::cudakit_cpu::bit_cast<unsigned long long>(d) & 0xffffffffu);
}

namespace cudakit_cpu {

constexpr unsigned kReadAsInteger = 1, kNormalizedCoordinates = 2;
// Internal: a texel fetched raw for the linear filter (see raw_integer_texel).
constexpr unsigned kFilterFetch = 1u << 30;
enum : unsigned { kWrap = 0, kClamp = 1, kMirror = 2, kBorder = 3 };

[[noreturn]] static inline void texture_fault(const char* function, const char* what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", function, what);
  runtime->trap(message);
  __builtin_unreachable();
}

static inline const TextureRecord& checked(const TextureRecord* r, const char* function) {
  if (!r) texture_fault(function, "the texture or surface object is 0 (not created)");
  if (r->magic != kTextureMagic)
    texture_fault(function,
                  "the texture or surface is not bound to memory, or the object was destroyed "
                  "(bind the reference with set_array/set_address before the launch)");
  return *r;
}
static inline const TextureRecord& record_of(unsigned long long handle, const char* function) {
  return checked(reinterpret_cast<const TextureRecord*>(handle), function);
}

static inline unsigned channel_bytes(unsigned format) {
  switch (format) {
    case 0x01:
    case 0x08:
      return 1;
    case 0x02:
    case 0x09:
    case 0x10:
      return 2;
    default:
      return 4;
  }
}
static inline bool is_small_integer(unsigned format) {
  return format == 0x01 || format == 0x02 || format == 0x08 || format == 0x09;
}
// Whether fetches read 8/16-bit integers as normalized floats (which the
// linear filter blends in fixed point: cudakit_cpu_texture_filter.h).
static inline bool reads_normalized(const TextureRecord& r, unsigned flags) {
  return is_small_integer(r.format) && !(flags & kReadAsInteger);
}
// Whether fetches return floats (and may be filtered): float and half
// formats, and 8/16-bit integers read as normalized floats.
static inline bool reads_float(const TextureRecord& r, unsigned flags) {
  return r.format == 0x10 || r.format == 0x20 || reads_normalized(r, flags);
}

// Channel c of the texel at p, as the fetch returns it (exact for 32-bit
// integers: a double holds them).
static inline double channel_value(const TextureRecord& r, const unsigned char* p, unsigned c,
                                   bool normalize) {
  const unsigned char* q = p + c * channel_bytes(r.format);
  switch (r.format) {
    case 0x01: {
      const unsigned char v = *q;
      return normalize ? static_cast<double>(static_cast<float>(v) / 255.0f) : v;
    }
    case 0x02: {
      unsigned short v;
      std::memcpy(&v, q, 2);
      return normalize ? static_cast<double>(static_cast<float>(v) / 65535.0f) : v;
    }
    case 0x08: {
      const signed char v = static_cast<signed char>(*q);
      return normalize ? static_cast<double>(fmaxf(static_cast<float>(v) / 127.0f, -1.0f)) : v;
    }
    case 0x09: {
      short v;
      std::memcpy(&v, q, 2);
      return normalize ? static_cast<double>(fmaxf(static_cast<float>(v) / 32767.0f, -1.0f)) : v;
    }
    case 0x03: {
      unsigned v;
      std::memcpy(&v, q, 4);
      return v;
    }
    case 0x0a: {
      int v;
      std::memcpy(&v, q, 4);
      return v;
    }
    case 0x10: {
      __half h;
      std::memcpy(&h, q, 2);
      return static_cast<double>(static_cast<float>(h));
    }
    default: {
      float v;
      std::memcpy(&v, q, 4);
      return v;
    }
  }
}

// The address mode a dimension works under: wrap and mirror need normalized
// coordinates (the GPU clamps otherwise).
static inline unsigned effective_mode(unsigned mode, bool normalized) {
  return !normalized && (mode == kWrap || mode == kMirror) ? kClamp : mode;
}
// One texel index along a dimension of n texels, under an address mode;
// false when it falls on the border.
static inline bool address(int& i, int n, unsigned mode, bool normalized) {
  if (n <= 0) return false;
  mode = effective_mode(mode, normalized);
  if (mode == kBorder) return i >= 0 && i < n;
  if (mode == kWrap) {
    i %= n;
    if (i < 0) i += n;
    return true;
  }
  if (mode == kMirror) {
    int m = i % (2 * n);
    if (m < 0) m += 2 * n;
    i = m >= n ? 2 * n - 1 - m : m;
    return true;
  }
  i = i < 0 ? 0 : (i >= n ? n - 1 : i);  // clamp
  return true;
}

// A normalized texel fetched for the linear filter's blend holds the raw
// integer (kFilterFetch).
static inline bool raw_integer_texel(const TextureRecord& r, unsigned flags) {
  return reads_normalized(r, flags) && (flags & kFilterFetch);
}
// The border color as a fetch returns it (measured on an H200): the texture
// holds it in the texel's format. Read as normalized floats, 8/16-bit
// integers take the color clamped to [0, 1] (unsigned) or [-1, 1] (signed),
// its magnitude cut to 4 bits more than the format has, then rounded to the
// format's steps with halves going down; half cuts toward zero (saturating at
// 65504); float is exact. Read as integers, each channel is the low bytes of
// the color's float bits (sign-extended for signed formats).
// The color in steps of an 8/16-bit normalized format (signed).
static inline double border_steps(float color, unsigned bits, bool is_signed) {
  if (!(color == color)) return 0.0;
  const double lo = is_signed ? -1.0 : 0.0;
  const double v = color < lo ? lo : (color > 1.0f ? 1.0 : static_cast<double>(color));
  const double magnitude = v < 0 ? -v : v;
  const double steps = static_cast<double>((1u << bits) - 1u);
  const double cut = floor(ldexp(magnitude, static_cast<int>(bits) + 4));
  const double q = ceil(ldexp(cut * steps, -static_cast<int>(bits) - 4) - 0.5);
  if (q < 0.5) return 0.0;  // +0 either side (ceil gives -0 below a half)
  return v < 0 ? -q : q;
}
// The half next to the color toward zero: the nearest half, one step back
// where that rounded away from zero (a finite color past 65504 saturates).
static inline float half_toward_zero(float color) {
  __half h(color);
  if (fabsf(static_cast<float>(h)) > fabsf(color)) --h.x;
  return h;
}
// `normalize`: an 8/16-bit integer read as a normalized float; `steps`: one
// that enters the linear filter as the raw integer (see raw_integer_texel).
static inline double border_value(const TextureRecord& r, unsigned k, bool normalize, bool steps) {
  const float color = r.border_color[k];
  if (normalize) {
    const bool is_signed = r.format == 0x08 || r.format == 0x09;
    const unsigned bits = 8 * channel_bytes(r.format) - (is_signed ? 1 : 0);
    const double q = border_steps(color, bits, is_signed);
    return steps ? q : static_cast<float>(q) / static_cast<float>((1u << bits) - 1u);
  }
  unsigned raw;
  std::memcpy(&raw, &color, 4);
  switch (r.format) {
    case 0x01:
      return raw & 0xffu;
    case 0x02:
      return raw & 0xffffu;
    case 0x08:
      return static_cast<signed char>(raw & 0xffu);
    case 0x09:
      return static_cast<short>(raw & 0xffffu);
    case 0x03:
      return static_cast<double>(raw);
    case 0x0a:
      return static_cast<double>(static_cast<int>(raw));
    case 0x10:
      return half_toward_zero(color);
    default:
      return color;
  }
}

// The texel at integer coordinates (after addressing), or the border color.
struct Texel {
  double v[4] = {0, 0, 0, 0};
};
static inline Texel texel_at(const TextureRecord& r, unsigned flags, int dims, int x, int y, int z,
                             int layer) {
  Texel t;
  const bool normalized = flags & kNormalizedCoordinates;
  const int n[3] = {static_cast<int>(r.width), static_cast<int>(r.height),
                    static_cast<int>(r.depth)};
  int c[3] = {x, y, z};
  bool inside = true;
  for (int d = 0; d < dims; ++d)
    inside = address(c[d], n[d], r.address_mode[d], normalized) && inside;
  if (!inside) {
    for (unsigned k = 0; k < 4; ++k)
      t.v[k] = border_value(r, k, reads_normalized(r, flags), raw_integer_texel(r, flags));
    return t;
  }
  long long plane = dims == 3 ? c[2] : 0;
  if (r.layered) {
    const int layers = static_cast<int>(r.depth);
    plane = layer < 0 ? 0 : (layer >= layers ? layers - 1 : layer);
  }
  const unsigned char* p = reinterpret_cast<const unsigned char*>(r.data) +
                           plane * static_cast<long long>(r.slice_pitch) +
                           static_cast<long long>(dims >= 2 ? c[1] : 0) * r.pitch +
                           static_cast<long long>(c[0]) * channel_bytes(r.format) * r.channels;
  const bool normalize = reads_normalized(r, flags) && !raw_integer_texel(r, flags);
  for (unsigned k = 0; k < r.channels && k < 4; ++k) t.v[k] = channel_value(r, p, k, normalize);
  return t;
}

// The texel coordinate of a fetch: a normalized coordinate is cut to 21
// fractional bits (toward minus infinity) before it is scaled by the size,
// exactly (measured on an H200, for point and linear fetches and gather).
static inline double texel_coordinate(float x, unsigned n, unsigned flags) {
  if (!(flags & kNormalizedCoordinates)) return x;
  return ldexp(floor(ldexp(static_cast<double>(x), 21)), -21) * static_cast<double>(n);
}
// The texel a point fetch reads along one dimension (clamped far outside
// any array, so that NaN and huge coordinates stay defined).
static inline int texel_index(double u) {
  const double i = floor(u);
  if (!(i > -1073741824.0 && i < 1073741824.0)) return u < 0 ? -1073741824 : 1073741824;
  return static_cast<int>(i);
}
// Sampling at float coordinates: dims 1..3 (layer separate), point or linear.
static inline Texel sample(const TextureRecord& r, unsigned flags, int dims, float x, float y,
                           float z, int layer) {
  const double at[3] = {texel_coordinate(x, r.width, flags), texel_coordinate(y, r.height, flags),
                        texel_coordinate(z, r.depth, flags)};
  if (r.filter == 0 || !reads_float(r, flags)) {
    int i[3] = {0, 0, 0};
    for (int d = 0; d < dims; ++d) i[d] = texel_index(at[d]);
    return texel_at(r, flags, dims, i[0], i[1], i[2], layer);
  }
  int base[3] = {0, 0, 0};
  int weight[3] = {0, 0, 0};
  const unsigned sizes[3] = {r.width, r.height, r.depth};
  const bool normalized = flags & kNormalizedCoordinates;
  for (int d = 0; d < dims; ++d) {
    // A clamped dimension filters from the coordinate clamped to the outer
    // texels' centers (measured on an H200: it weighs 3-D corners apart).
    double u = at[d];
    if (effective_mode(r.address_mode[d], normalized) == kClamp) {
      const double last = static_cast<double>(sizes[d]) - 0.5;
      u = u < 0.5 ? 0.5 : (u > last ? last : u);  // NaN stays NaN
    }
    const FilterStart start = filter_start(u);
    base[d] = start.base;
    weight[d] = start.weight;
  }
  int corner[8];
  corner_weights(dims, weight, corner);
  const int corners = 1 << dims;
  Texel t[8];
  for (int k = 0; k < corners; ++k) {
    int i[3] = {base[0], base[1], base[2]};
    for (int d = 0; d < dims; ++d) i[d] += (k >> d) & 1;
    t[k] = texel_at(r, flags | kFilterFetch, dims, i[0], i[1], i[2], layer);
  }
  Texel out;
  const bool fixed_point = reads_normalized(r, flags);
  for (int c = 0; c < 4; ++c) {
    if (fixed_point) {
      long long blend = 0;
      for (int k = 0; k < corners; ++k) blend += corner[k] * static_cast<long long>(t[k].v[c]);
      out.v[c] = fixed_point_filter_result(r.format, blend);
    } else {
      double texel[8];
      for (int k = 0; k < corners; ++k) texel[k] = t[k].v[c];
      out.v[c] = float_filter_result(texel, corner, corners, r.format == 0x10);
    }
  }
  return out;
}

// The value types a fetch returns: scalars and CUDA's 1/2/4 vectors.
template <class T>
struct VectorInfo {
  typedef T component;
  static constexpr int size = 1;
  typedef float normalized;
};
#define CUDAKIT_CPU_TEXTURE_VECTOR(N)      \
  template <>                              \
  struct VectorInfo<N##1> {                \
    typedef decltype(N##1 {}.x) component; \
    static constexpr int size = 1;         \
    typedef float1 normalized;             \
  };                                       \
  template <>                              \
  struct VectorInfo<N##2> {                \
    typedef decltype(N##2 {}.x) component; \
    static constexpr int size = 2;         \
    typedef float2 normalized;             \
  };                                       \
  template <>                              \
  struct VectorInfo<N##4> {                \
    typedef decltype(N##4 {}.x) component; \
    static constexpr int size = 4;         \
    typedef float4 normalized;             \
  };
CUDAKIT_CPU_TEXTURE_VECTOR(char)
CUDAKIT_CPU_TEXTURE_VECTOR(uchar)
CUDAKIT_CPU_TEXTURE_VECTOR(short)
CUDAKIT_CPU_TEXTURE_VECTOR(ushort)
CUDAKIT_CPU_TEXTURE_VECTOR(int)
CUDAKIT_CPU_TEXTURE_VECTOR(uint)
CUDAKIT_CPU_TEXTURE_VECTOR(float)
#undef CUDAKIT_CPU_TEXTURE_VECTOR

template <class C>
static inline C component_from(double v) {
  if constexpr (std::is_floating_point<C>::value)
    return static_cast<C>(v);
  else
    return static_cast<C>(static_cast<long long>(v));  // 32-bit patterns survive either sign
}
template <class T>
static inline T value_from(const Texel& t) {
  typedef VectorInfo<T> info;
  typedef typename info::component C;
  T out{};
  if constexpr (info::size == 1 && std::is_same<C, T>::value) {
    out = component_from<C>(t.v[0]);
  } else {
    C* parts = reinterpret_cast<C*>(&out);
    for (int c = 0; c < info::size; ++c) parts[c] = component_from<C>(t.v[c]);
  }
  return out;
}

}  // namespace cudakit_cpu

// ---- texture objects -------------------------------------------------------
#define CUDAKIT_CPU_TEXTURE_RECORD(NAME) \
  const ::cudakit_cpu::TextureRecord& r = ::cudakit_cpu::record_of(obj, NAME)

namespace cudakit_cpu {
// A 1-D or 2-D fetch from a 3-D array (one made with a depth, even of 1):
// an H200 reads 0 there, which no program means; stop with what to do.
static inline void refuse_3d_array(const TextureRecord& r, const char* function) {
  if (r.array_3d)
    texture_fault(function,
                  "the texture is a 3-D array (made with a depth; a GPU reads 0 here): sample "
                  "it with tex3D, or make the array 2-D (depth 0)");
}
}  // namespace cudakit_cpu

template <class T>
static inline T tex1Dfetch(cudaTextureObject_t obj, int x) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex1Dfetch");
  ::cudakit_cpu::Texel t;  // out of range reads 0, as on the GPU
  if (x >= 0 && static_cast<unsigned>(x) < r.width)
    t = ::cudakit_cpu::texel_at(r, r.flags, 1, x, 0, 0, 0);
  return ::cudakit_cpu::value_from<T>(t);
}
template <class T>
static inline T tex1D(cudaTextureObject_t obj, float x) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex1D");
  ::cudakit_cpu::refuse_3d_array(r, "tex1D");
  return ::cudakit_cpu::value_from<T>(::cudakit_cpu::sample(r, r.flags, 1, x, 0, 0, 0));
}
template <class T>
static inline T tex2D(cudaTextureObject_t obj, float x, float y) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex2D");
  ::cudakit_cpu::refuse_3d_array(r, "tex2D");
  return ::cudakit_cpu::value_from<T>(::cudakit_cpu::sample(r, r.flags, 2, x, y, 0, 0));
}
template <class T>
static inline T tex3D(cudaTextureObject_t obj, float x, float y, float z) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex3D");
  return ::cudakit_cpu::value_from<T>(::cudakit_cpu::sample(r, r.flags, 3, x, y, z, 0));
}
template <class T>
static inline T tex1DLayered(cudaTextureObject_t obj, float x, int layer) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex1DLayered");
  return ::cudakit_cpu::value_from<T>(::cudakit_cpu::sample(r, r.flags, 1, x, 0, 0, layer));
}
template <class T>
static inline T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex2DLayered");
  return ::cudakit_cpu::value_from<T>(::cudakit_cpu::sample(r, r.flags, 2, x, y, 0, layer));
}
// Mipmaps have one level here: level 0, whatever the level or gradient.
template <class T>
static inline T tex1DLod(cudaTextureObject_t obj, float x, float) {
  return tex1D<T>(obj, x);
}
template <class T>
static inline T tex2DLod(cudaTextureObject_t obj, float x, float y, float) {
  return tex2D<T>(obj, x, y);
}
template <class T>
static inline T tex3DLod(cudaTextureObject_t obj, float x, float y, float z, float) {
  return tex3D<T>(obj, x, y, z);
}
template <class T>
static inline T tex2DGrad(cudaTextureObject_t obj, float x, float y, float2, float2) {
  return tex2D<T>(obj, x, y);
}
// The component comp of the four texels bilinear filtering would use, in
// the GPU's order: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
template <class T>
static inline T tex2Dgather(cudaTextureObject_t obj, float x, float y, int comp = 0) {
  CUDAKIT_CPU_TEXTURE_RECORD("tex2Dgather");
  ::cudakit_cpu::refuse_3d_array(r, "tex2Dgather");
  const int i =
      ::cudakit_cpu::filter_start(::cudakit_cpu::texel_coordinate(x, r.width, r.flags)).base;
  const int j =
      ::cudakit_cpu::filter_start(::cudakit_cpu::texel_coordinate(y, r.height, r.flags)).base;
  const int at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
  const int c = comp < 0 ? 0 : (comp > 3 ? 3 : comp);
  ::cudakit_cpu::Texel out;
  for (int k = 0; k < 4; ++k)
    out.v[k] = ::cudakit_cpu::texel_at(r, r.flags, 2, at[k][0], at[k][1], 0, 0).v[c];
  return ::cudakit_cpu::value_from<T>(out);
}
#undef CUDAKIT_CPU_TEXTURE_RECORD

// The forms that write through a pointer: tex2D(&v, obj, x, y).
template <class T>
static inline void tex1Dfetch(T* out, cudaTextureObject_t obj, int x) {
  *out = tex1Dfetch<T>(obj, x);
}
template <class T>
static inline void tex1D(T* out, cudaTextureObject_t obj, float x) {
  *out = tex1D<T>(obj, x);
}
template <class T>
static inline void tex2D(T* out, cudaTextureObject_t obj, float x, float y) {
  *out = tex2D<T>(obj, x, y);
}
template <class T>
static inline void tex3D(T* out, cudaTextureObject_t obj, float x, float y, float z) {
  *out = tex3D<T>(obj, x, y, z);
}
template <class T>
static inline void tex1DLayered(T* out, cudaTextureObject_t obj, float x, int layer) {
  *out = tex1DLayered<T>(obj, x, layer);
}
template <class T>
static inline void tex2DLayered(T* out, cudaTextureObject_t obj, float x, float y, int layer) {
  *out = tex2DLayered<T>(obj, x, y, layer);
}
template <class T>
static inline void tex2DLod(T* out, cudaTextureObject_t obj, float x, float y, float level) {
  *out = tex2DLod<T>(obj, x, y, level);
}
template <class T>
static inline void tex1DLod(T* out, cudaTextureObject_t obj, float x, float level) {
  *out = tex1DLod<T>(obj, x, level);
}
template <class T>
static inline void tex3DLod(T* out, cudaTextureObject_t obj, float x, float y, float z,
                            float level) {
  *out = tex3DLod<T>(obj, x, y, z, level);
}
template <class T>
static inline void tex2DGrad(T* out, cudaTextureObject_t obj, float x, float y, float2 dx,
                             float2 dy) {
  *out = tex2DGrad<T>(obj, x, y, dx, dy);
}
template <class T>
static inline void tex2Dgather(T* out, cudaTextureObject_t obj, float x, float y, int comp = 0) {
  *out = tex2Dgather<T>(obj, x, y, comp);
}

// ---- texture references ----------------------------------------------------
// `texture<float, 2> tex;` is a record the host fills when it binds the
// reference by name (the module's globals table lists it).
template <class T, int Dim = 1, enum cudaTextureReadMode Mode = cudaReadModeElementType>
struct texture {
  ::cudakit_cpu::TextureRecord record;
};

namespace cudakit_cpu {
template <class T, enum cudaTextureReadMode Mode>
struct ReferenceResult {
  typedef T type;
};
template <class T>
struct ReferenceResult<T, cudaReadModeNormalizedFloat> {
  typedef typename VectorInfo<T>::normalized type;
};
// The flags the reference's read mode implies: integers stay integers unless
// the reference reads normalized floats.
template <enum cudaTextureReadMode Mode>
static inline unsigned reference_flags(const TextureRecord& r) {
  return Mode == cudaReadModeElementType ? (r.flags | kReadAsInteger) : (r.flags & ~kReadAsInteger);
}
}  // namespace cudakit_cpu

#define CUDAKIT_CPU_REFERENCE(NAME)                                                  \
  const ::cudakit_cpu::TextureRecord& r = ::cudakit_cpu::checked(&ref.record, NAME); \
  const unsigned flags = ::cudakit_cpu::reference_flags<M>(r);                       \
  typedef typename ::cudakit_cpu::ReferenceResult<T, M>::type Result

template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex1Dfetch(
    const texture<T, D, M>& ref, int x) {
  CUDAKIT_CPU_REFERENCE("tex1Dfetch");
  ::cudakit_cpu::Texel t;
  if (x >= 0 && static_cast<unsigned>(x) < r.width)
    t = ::cudakit_cpu::texel_at(r, flags, 1, x, 0, 0, 0);
  return ::cudakit_cpu::value_from<Result>(t);
}
template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex1D(const texture<T, D, M>& ref,
                                                                        float x) {
  CUDAKIT_CPU_REFERENCE("tex1D");
  return ::cudakit_cpu::value_from<Result>(::cudakit_cpu::sample(r, flags, 1, x, 0, 0, 0));
}
template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex2D(const texture<T, D, M>& ref,
                                                                        float x, float y) {
  CUDAKIT_CPU_REFERENCE("tex2D");
  return ::cudakit_cpu::value_from<Result>(::cudakit_cpu::sample(r, flags, 2, x, y, 0, 0));
}
template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex3D(const texture<T, D, M>& ref,
                                                                        float x, float y, float z) {
  CUDAKIT_CPU_REFERENCE("tex3D");
  return ::cudakit_cpu::value_from<Result>(::cudakit_cpu::sample(r, flags, 3, x, y, z, 0));
}
template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex1DLayered(
    const texture<T, D, M>& ref, float x, int layer) {
  CUDAKIT_CPU_REFERENCE("tex1DLayered");
  return ::cudakit_cpu::value_from<Result>(::cudakit_cpu::sample(r, flags, 1, x, 0, 0, layer));
}
template <class T, int D, enum cudaTextureReadMode M>
static inline typename ::cudakit_cpu::ReferenceResult<T, M>::type tex2DLayered(
    const texture<T, D, M>& ref, float x, float y, int layer) {
  CUDAKIT_CPU_REFERENCE("tex2DLayered");
  return ::cudakit_cpu::value_from<Result>(::cudakit_cpu::sample(r, flags, 2, x, y, 0, layer));
}
#undef CUDAKIT_CPU_REFERENCE

// ---- surfaces --------------------------------------------------------------
// x counts bytes; y, z and the layer count elements.
template <class T, int Dim = 1>
struct surface {
  ::cudakit_cpu::TextureRecord record;
};

namespace cudakit_cpu {
// The address of the sizeof-`bytes` value at (x bytes, y, z/layer), or null
// where the boundary mode makes it read zero / skip the write.
static inline unsigned char* surface_address(const TextureRecord* rec, const char* function,
                                             int dims, int x, int y, int z, unsigned bytes,
                                             enum cudaSurfaceBoundaryMode mode) {
  const TextureRecord& r = checked(rec, function);
  if (!r.surface)
    texture_fault(function,
                  "the memory behind this surface was not made for surface access (a CUDA "
                  "array with the surface load/store flag)");
  const long long limit[3] = {
      static_cast<long long>(r.width) * channel_bytes(r.format) * r.channels,
      static_cast<long long>(r.height), static_cast<long long>(r.depth)};
  long long at[3] = {x, y, z};
  const long long span[3] = {bytes, 1, 1};
  for (int d = 0; d < dims; ++d) {
    if (at[d] >= 0 && at[d] + span[d] <= limit[d]) continue;
    if (mode == cudaBoundaryModeZero) return nullptr;
    if (mode == cudaBoundaryModeClamp) {
      const long long last = limit[d] - span[d];
      at[d] = at[d] < 0 ? 0 : (at[d] > last ? last : at[d]);
      continue;
    }
    char what[160];
    snprintf(what, sizeof what,
             "out of bounds access at (%d, %d, %d) (x in bytes) with cudaBoundaryModeTrap", x, y,
             z);
    texture_fault(function, what);
  }
  return reinterpret_cast<unsigned char*>(r.data) + at[2] * static_cast<long long>(r.slice_pitch) +
         at[1] * static_cast<long long>(r.pitch) + at[0];
}
template <class T>
static inline T surface_read(const TextureRecord* r, const char* function, int dims, int x, int y,
                             int z, enum cudaSurfaceBoundaryMode mode) {
  T out{};
  if (const unsigned char* p = surface_address(r, function, dims, x, y, z, sizeof(T), mode))
    std::memcpy(static_cast<void*>(&out), p, sizeof(T));
  return out;
}
template <class T>
static inline void surface_write(const T& v, const TextureRecord* r, const char* function, int dims,
                                 int x, int y, int z, enum cudaSurfaceBoundaryMode mode) {
  if (unsigned char* p = surface_address(r, function, dims, x, y, z, sizeof(T), mode))
    std::memcpy(p, static_cast<const void*>(&v), sizeof(T));
}
static inline const TextureRecord* surface_record(cudaSurfaceObject_t obj) {
  return reinterpret_cast<const TextureRecord*>(obj);
}
template <int D>
static inline const TextureRecord* surface_record(const surface<void, D>& ref) {
  return &ref.record;
}
}  // namespace cudakit_cpu

// Each function for objects and references alike (S: cudaSurfaceObject_t or
// surface<void, D>): surfNDread<T>(s, ...), surfNDread(&v, s, ...),
// surfNDwrite(v, s, ...). A layered surface's layer is its last coordinate.
#define CUDAKIT_CPU_SURFACE_FUNCTIONS(NAME, DIMS, PARAMS, X, Y, Z)                                 \
  template <class T>                                                                               \
  static inline T NAME##read(cudaSurfaceObject_t s, PARAMS,                                        \
                             enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {           \
    return ::cudakit_cpu::surface_read<T>(::cudakit_cpu::surface_record(s), #NAME "read", DIMS, X, \
                                          Y, Z, mode);                                             \
  }                                                                                                \
  template <class T, int D>                                                                        \
  static inline T NAME##read(const surface<void, D>& s, PARAMS,                                    \
                             enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {           \
    return ::cudakit_cpu::surface_read<T>(::cudakit_cpu::surface_record(s), #NAME "read", DIMS, X, \
                                          Y, Z, mode);                                             \
  }                                                                                                \
  template <class T, class S>                                                                      \
  static inline void NAME##read(T* out, const S& s, PARAMS,                                        \
                                enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {        \
    *out = ::cudakit_cpu::surface_read<T>(::cudakit_cpu::surface_record(s), #NAME "read", DIMS, X, \
                                          Y, Z, mode);                                             \
  }                                                                                                \
  template <class T, class S>                                                                      \
  static inline void NAME##write(T v, const S& s, PARAMS,                                          \
                                 enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {       \
    ::cudakit_cpu::surface_write(v, ::cudakit_cpu::surface_record(s), #NAME "write", DIMS, X, Y,   \
                                 Z, mode);                                                         \
  }
#define CUDAKIT_CPU_COMMA ,
CUDAKIT_CPU_SURFACE_FUNCTIONS(surf1D, 1, int x, x, 0, 0)
CUDAKIT_CPU_SURFACE_FUNCTIONS(surf2D, 2, int x CUDAKIT_CPU_COMMA int y, x, y, 0)
CUDAKIT_CPU_SURFACE_FUNCTIONS(surf3D, 3, int x CUDAKIT_CPU_COMMA int y CUDAKIT_CPU_COMMA int z, x,
                              y, z)
CUDAKIT_CPU_SURFACE_FUNCTIONS(surf1DLayered, 3, int x CUDAKIT_CPU_COMMA int layer, x, 0, layer)
CUDAKIT_CPU_SURFACE_FUNCTIONS(surf2DLayered, 3,
                              int x CUDAKIT_CPU_COMMA int y CUDAKIT_CPU_COMMA int layer, x, y,
                              layer)
#undef CUDAKIT_CPU_COMMA
#undef CUDAKIT_CPU_SURFACE_FUNCTIONS

#endif  // CUDAKIT_CPU_TEXTURE_H
