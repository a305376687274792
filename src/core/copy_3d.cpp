// Box copies (cuMemcpy3D): every end checked here, once for both backends,
// then handed to the backend with its layout resolved.
#include <string>

#include "backend/backend.hpp"
#include "cudakit/cuda_array.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

const char* const kDoing = "copying a box (Memcpy2D / Memcpy3D)";

std::string n(std::size_t value) { return std::to_string(value); }

[[noreturn]] void refuse(const char* end, const std::string& what, const std::string& hint) {
  throw ArgumentError(kDoing, std::string("the ") + end + " " + what, hint);
}

// Checks one end against the box and resolves its layout; `which` is
// "source" or "destination".
detail::BoxCopyEnd check_end(const CopyEnd& end, const Copy3D& copy, const char* which) {
  detail::BoxCopyEnd out;
  out.kind = end.kind;
  out.x_bytes = end.x_bytes;
  out.y = end.y;
  out.z = end.z;
  const std::size_t row_end = end.x_bytes + copy.width_bytes;
  const std::size_t rows_end = end.y + copy.height;
  const std::size_t slices_end = end.z + copy.depth;
  if (end.kind == CopyEnd::Kind::array) {
    if (!end.array || end.array->empty())
      refuse(which, "array is empty (freed, moved from or never created)",
             "pass an array that holds memory");
    const CudaArrayDescriptor& d = end.array->descriptor();
    const std::size_t element = d.element_bytes();
    const std::size_t row_bytes = d.width * element;
    const std::size_t rows = d.height ? d.height : 1, slices = d.depth ? d.depth : 1;
    if (end.x_bytes % element || copy.width_bytes % element)
      refuse(which,
             "array has elements of " + n(element) + " bytes, but the box's x offset (" +
                 n(end.x_bytes) + " bytes) or width (" + n(copy.width_bytes) +
                 " bytes) is not a whole number of them",
             "give x and the width in bytes as multiples of the element size (channels x the "
             "format's bytes)");
    if (row_end > row_bytes)
      refuse(which,
             "array's rows have " + n(row_bytes) + " bytes (" + n(d.width) + " elements of " +
                 n(element) + "), but the box reaches byte " + n(row_end) + " (x " +
                 n(end.x_bytes) + " + width " + n(copy.width_bytes) + ")",
             "make x_in_bytes + width_in_bytes at most width x element size");
    if (rows_end > rows)
      refuse(which,
             "array has " + n(rows) + " rows, but the box reaches row " + n(rows_end) + " (y " +
                 n(end.y) + " + height " + n(copy.height) + ")",
             "make y + height at most the array's height");
    if (slices_end > slices)
      refuse(which,
             "array has " + n(slices) + " slices, but the box reaches slice " + n(slices_end) +
                 " (z " + n(end.z) + " + depth " + n(copy.depth) + ")",
             "make z + depth at most the array's depth");
    out.array = end.array->native();
    out.ordinal = end.array->device().ordinal();
    return out;
  }
  out.pitch = end.pitch ? end.pitch : row_end;
  out.height = end.height ? end.height : rows_end;
  const char* memory = end.kind == CopyEnd::Kind::host ? "host memory's" : "device memory's";
  if (out.pitch < row_end)
    refuse(which,
           std::string(memory) + " pitch of " + n(out.pitch) +
               " bytes is less than the box's x offset + width (" + n(end.x_bytes) + " + " +
               n(copy.width_bytes) + " bytes): its rows would run into each other",
           "give a pitch of at least x_in_bytes + width_in_bytes (the bytes from one row to the "
           "next)");
  if (copy.depth > 1 && out.height < rows_end)
    refuse(which,
           std::string(memory) + " height of " + n(out.height) +
               " rows per slice is less than the box's y + height (" + n(end.y) + " + " +
               n(copy.height) + "): its slices would run into each other",
           "give a height of at least y + height (the rows from one slice to the next)");
  if (end.bytes) {
    const std::size_t past =
        ((end.z + copy.depth - 1) * out.height + rows_end - 1) * out.pitch + row_end;
    if (past > end.bytes)
      refuse(which,
             std::string(memory) + " " + n(end.bytes) +
                 " bytes end before the box does (it needs " + n(past) + " bytes: pitch " +
                 n(out.pitch) + ", height " + n(out.height) + ", the offsets and the box)",
             "pass more memory, or a smaller box, pitch or offsets");
  }
  if (end.kind == CopyEnd::Kind::host) {
    if (!end.host) refuse(which, "host address is null", "pass the host memory to copy");
    out.host = end.host;
    return out;
  }
  if (!end.device) refuse(which, "device address is 0", "pass device memory (mem_alloc)");
  out.device = end.device;
  out.ordinal = end.device_ordinal >= 0 ? end.device_ordinal : Device::current().ordinal();
  return out;
}

// The box's bytes in device memory against the allocation that holds them,
// where the backend can tell.
void check_device_range(detail::Backend& backend, const detail::BoxCopyEnd& end, const Copy3D& copy,
                        const char* which) {
  if (end.kind != CopyEnd::Kind::device) return;
  const std::size_t first = (end.z * end.height + end.y) * end.pitch + end.x_bytes;
  const std::size_t last_row =
      ((end.z + copy.depth - 1) * end.height + end.y + copy.height - 1) * end.pitch;
  const std::size_t past = last_row + end.x_bytes + copy.width_bytes;
  std::pair<detail::DevicePtr, std::size_t> range;
  try {
    range = backend.address_range(end.device + first);
  } catch (const NotSupported&) {
    return;
  } catch (const ArgumentError&) {
    return;  // not an allocation of the backend's (mapped host memory): the copy decides
  }
  const detail::DevicePtr allocation_end = range.first + range.second;
  if (end.device + past > allocation_end)
    refuse(which,
           "device memory's box ends " + n(end.device + past - allocation_end) +
               " bytes past the end of its allocation of " + n(range.second) +
               " bytes (the box spans bytes " + n(first) + " to " + n(past) +
               " from the given address)",
           "check pitch, height and the offsets against the allocation, or allocate more");
}

detail::BoxCopy checked(const Copy3D& copy, detail::Backend& backend) {
  detail::BoxCopy box;
  box.width_bytes = copy.width_bytes;
  box.height = copy.height;
  box.depth = copy.depth;
  box.src = check_end(copy.src, copy, "source");
  box.dst = check_end(copy.dst, copy, "destination");
  if (copy.src.kind == CopyEnd::Kind::array && copy.dst.kind == CopyEnd::Kind::array) {
    const std::size_t s = copy.src.array->descriptor().element_bytes();
    const std::size_t d = copy.dst.array->descriptor().element_bytes();
    if (s != d)
      throw ArgumentError(kDoing,
                          "the source array has elements of " + n(s) +
                              " bytes and the destination array of " + n(d) + " bytes",
                          "copy between arrays of the same element size (channels x the "
                          "format's bytes), or through device memory");
    if (copy.src.array->device().backend_kind() != copy.dst.array->device().backend_kind())
      throw ArgumentError(kDoing, "the two arrays belong to different backends",
                          "copy through host memory");
  }
  check_device_range(backend, box.src, copy, "source");
  check_device_range(backend, box.dst, copy, "destination");
  return box;
}

bool empty_box(const Copy3D& copy) {
  return copy.width_bytes == 0 || copy.height == 0 || copy.depth == 0;
}

// The backend of the copy: an array's, else the current device's.
Device device_of(const Copy3D& copy) {
  if (copy.src.kind == CopyEnd::Kind::array && copy.src.array && !copy.src.array->empty())
    return copy.src.array->device();
  if (copy.dst.kind == CopyEnd::Kind::array && copy.dst.array && !copy.dst.array->empty())
    return copy.dst.array->device();
  return Device::current();
}

}  // namespace

void copy_3d(const Copy3D& copy) {
  if (empty_box(copy)) return;
  const Device device = device_of(copy);
  detail::Backend& backend = detail::backend_of(device);
  const detail::BoxCopy box = checked(copy, backend);
  backend.copy_3d(box, nullptr, false);
}

void copy_3d_async(const Copy3D& copy, const Stream& stream) {
  if (empty_box(copy)) return;
  detail::Backend& backend = detail::backend_of(stream.device());
  const detail::BoxCopy box = checked(copy, backend);
  backend.copy_3d(box, stream.native(), true);
}

}  // namespace cudakit
