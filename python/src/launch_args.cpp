// LaunchArgs: Python literals resolved against the kernel's parameters, the
// pointee check, then the core's checked launch.
#include "launch_args.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "cudakit/error.hpp"
#include "cudakit/event.hpp"

namespace cudakit::python {
namespace {

std::string number_text(long double v) {
  // std::to_chars: shortest exact text, and no iostream locale facets (which
  // are unusable in this module on some toolchains; see Scalar::to_string).
  char text[128];
  const auto result = std::to_chars(text, text + sizeof text, v);
  return std::string(text, result.ptr);
}

// The pointee of a parameter type as written ("const float *__restrict__"
// -> f4); kind 0 when unknown (void, a template parameter, a struct, T**).
ElementType pointee(const std::string& type, bool& is_char) {
  is_char = false;
  std::string words;
  int stars = 0;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    if (token != "const" && token != "volatile" && token != "__restrict__" &&
        token != "__restrict" && token != "restrict") {
      if (!words.empty()) words += ' ';
      words += token;
    }
    token.clear();
  };
  for (char c : type) {
    if (c == '*') {
      flush();
      ++stars;
    } else if (c == ' ' || c == '\t' || c == '&') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  if (stars != 1) return {};
  struct Name {
    const char* name;
    char kind;
    unsigned char size;
  };
  static const Name names[] = {
      {"float", 'f', 4},
      {"double", 'f', 8},
      {"__half", 'f', 2},
      {"half", 'f', 2},
      {"int", 'i', 4},
      {"signed", 'i', 4},
      {"signed int", 'i', 4},
      {"int32_t", 'i', 4},
      {"unsigned", 'u', 4},
      {"unsigned int", 'u', 4},
      {"uint32_t", 'u', 4},
      {"short", 'i', 2},
      {"short int", 'i', 2},
      {"int16_t", 'i', 2},
      {"unsigned short", 'u', 2},
      {"uint16_t", 'u', 2},
      {"signed char", 'i', 1},
      {"int8_t", 'i', 1},
      {"unsigned char", 'u', 1},
      {"uint8_t", 'u', 1},
      {"long", 'i', 8},
      {"long int", 'i', 8},
      {"long long", 'i', 8},
      {"long long int", 'i', 8},
      {"int64_t", 'i', 8},
      {"ptrdiff_t", 'i', 8},
      {"unsigned long", 'u', 8},
      {"unsigned long long", 'u', 8},
      {"uint64_t", 'u', 8},
      {"size_t", 'u', 8},
      {"bool", 'b', 1},
  };
  if (words == "char") {
    is_char = true;
    return {'i', 1};
  }
  for (const Name& n : names)
    if (words == n.name) return {n.kind, n.size};
  return {};
}

}  // namespace

std::string launch_context(const Kernel& kernel, const LaunchConfig& config) {
  return "launching kernel " + kernel.name() + " (" + config.describe() + ")";
}

void LaunchArgs::clear() {
  entries_.clear();
  aggregates_.clear();
  has_host_ = false;
  ints_are_addresses_ = false;
}

LaunchArgs::Entry& LaunchArgs::add() { return entries_.emplace_back(); }

LaunchArgs& LaunchArgs::pointer(std::uint64_t device_address, const char* what,
                                ElementType element) {
  Entry& e = add();
  e.info = {ParamKind::pointer, ScalarType::unknown, sizeof(void*), what};
  e.slot = device_address;
  e.element = element;
  return *this;
}

LaunchArgs& LaunchArgs::scalar(ScalarType type, const void* bytes, std::size_t size) {
  if (size > sizeof(std::uint64_t)) return aggregate(bytes, size, "value");
  Entry& e = add();
  e.info = {ParamKind::scalar, type, size, "scalar"};
  std::memcpy(&e.slot, bytes, size);
  return *this;
}

LaunchArgs& LaunchArgs::integer_literal(long long value) {
  Entry& e = add();
  e.info = {ParamKind::scalar, ScalarType::i64, 8, "Python int"};
  std::memcpy(&e.slot, &value, 8);
  e.literal = Literal::signed_int;
  e.signed_value = value;
  return *this;
}

LaunchArgs& LaunchArgs::unsigned_literal(unsigned long long value) {
  Entry& e = add();
  e.info = {ParamKind::scalar, ScalarType::u64, 8, "Python int"};
  std::memcpy(&e.slot, &value, 8);
  e.literal = Literal::unsigned_int;
  e.unsigned_value = value;
  return *this;
}

LaunchArgs& LaunchArgs::float_literal(double value) {
  Entry& e = add();
  e.info = {ParamKind::scalar, ScalarType::f64, 8, "Python float"};
  std::memcpy(&e.slot, &value, 8);
  e.literal = Literal::floating;
  e.float_value = value;
  return *this;
}

LaunchArgs& LaunchArgs::aggregate(const void* bytes, std::size_t size, const char* type_name) {
  Entry& e = add();
  e.info = {ParamKind::aggregate, ScalarType::unknown, size, type_name};
  e.aggregate_index = static_cast<int>(aggregates_.size());
  aggregates_.emplace_back(static_cast<const char*>(bytes), size);
  return *this;
}

LaunchArgs& LaunchArgs::host(void* data, std::size_t bytes, TransferDirection direction,
                             ElementType element, const char* what) {
  Entry& e = add();
  e.info = {ParamKind::pointer, ScalarType::unknown, sizeof(void*), what};
  e.info.host_data = data;
  e.info.host_bytes = bytes;
  e.info.direction = direction;
  e.element = element;
  has_host_ = true;
  return *this;
}

void LaunchArgs::resolve_literal(const Kernel& kernel, const LaunchConfig& config,
                                 std::size_t index) {
  Entry& e = entries_[index];
  const auto& params = kernel.params().params;
  if (index >= params.size()) return;  // the core reports the count
  const Param& p = params[index];
  auto fail = [&](const std::string& message, const std::string& hint) {
    throw ArgumentError(launch_context(kernel, config),
                        p.describe(index) + ": " + message + "; the kernel is " + kernel.name() +
                            kernel.params().signature(),
                        hint);
  };
  const bool integral = e.literal != Literal::floating;
  const long double value = e.literal == Literal::signed_int     ? (long double)e.signed_value
                            : e.literal == Literal::unsigned_int ? (long double)e.unsigned_value
                                                                 : (long double)e.float_value;
  // Only for messages: formatting costs more than the whole conversion.
  auto shown = [&] { return integral ? number_text(value) : std::to_string(e.float_value); };

  if (p.kind == ParamKind::pointer) {
    if (integral && ints_are_addresses_ && value >= 0) {
      e.info = {ParamKind::pointer, ScalarType::unknown, sizeof(void*), "device address"};
      return;  // slot already holds the bits
    }
    fail(std::string("passed a Python ") + (integral ? "int " : "float ") + shown() +
             " for a pointer parameter",
         "pass device memory: a DeviceAllocation (mem_alloc), a GPUArray, an object with "
         "__cuda_array_interface__, or cuda.In/Out/InOut(numpy array)");
  }
  // Scalars, pointer_or_u64 and aggregates: the core's launch converts the
  // literal to the parameter's type or refuses it (KernelArgs).
}

void LaunchArgs::check_pointee(const Kernel& kernel, const LaunchConfig& config,
                               std::size_t index) const {
  const Entry& e = entries_[index];
  const auto& params = kernel.params().params;
  if (e.element.kind == 0 || e.element.kind == 'V' || index >= params.size()) return;
  const Param& p = params[index];
  if (p.kind != ParamKind::pointer || p.type.empty()) return;
  bool is_char = false;
  const ElementType expected = pointee(p.type, is_char);
  if (expected.kind == 0) return;
  bool same = expected.size == e.element.size;
  if (same) {
    const bool e_float = e.element.kind == 'f', x_float = expected.kind == 'f';
    // Signed and unsigned integers of one size are the same bits; char is either.
    same = e_float == x_float && (expected.kind != 'b' || e.element.kind != 'f');
    if (is_char) same = e.element.kind != 'f';
  }
  if (same) return;
  throw ArgumentError(
      launch_context(kernel, config),
      p.describe(index) + ": passed " + e.info.type_name + " of " + e.element.describe() +
          " elements; the kernel reads " + expected.describe() + " through it; the kernel is " +
          kernel.name() + kernel.params().signature(),
      "pass an array of " + expected.describe() + " (e.g. a.astype(numpy." + expected.describe() +
          ")), or change the kernel's parameter type; to reinterpret the bytes "
          "on purpose (as PyCUDA, which does not check, would), pass the bare "
          "address numpy.intp(a.gpudata)");
}

void LaunchArgs::resolve(const Kernel& kernel, const LaunchConfig& config) {
  const std::size_t n = entries_.size();
  infos_.resize(n);
  values_.resize(n + 1);
  scratch_.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    Entry& e = entries_[i];
    if (e.literal != Literal::none) resolve_literal(kernel, config, i);
    // numpy.intp(address) / numpy.uintp: PyCUDA's way to pass a pointer
    // value (e.g. int(alloc) + offset); an 8-byte integer for a pointer.
    if (e.literal == Literal::none && e.info.kind == ParamKind::scalar && e.info.size == 8 &&
        (e.info.scalar == ScalarType::i64 || e.info.scalar == ScalarType::u64) &&
        i < kernel.params().params.size() && kernel.params().params[i].kind == ParamKind::pointer)
      e.info = {ParamKind::pointer, ScalarType::unknown, sizeof(void*), "numpy.intp address"};
    if (e.element.kind != 0) check_pointee(kernel, config, i);
    infos_[i] = e.info;
    values_[i] = e.aggregate_index >= 0
                     ? static_cast<const void*>(aggregates_[e.aggregate_index].data())
                     : static_cast<const void*>(&e.slot);
  }
}

void LaunchArgs::fill(KernelArgs& args) const {
  args.clear();
  for (const Entry& e : entries_) {
    if (e.info.host_data != nullptr) {
      args.host(const_cast<void*>(e.info.host_data), e.info.host_bytes, e.info.direction);
    } else if (e.aggregate_index >= 0) {
      const std::string& bytes = aggregates_[e.aggregate_index];
      args.aggregate(bytes.data(), bytes.size(), e.info.type_name);
    } else if (e.info.kind == ParamKind::pointer) {
      args.pointer(e.slot, e.info.type_name);
    } else if (e.literal != Literal::none) {
      // Still a literal (resolve leaves scalar parameters to the core).
      if (e.literal == Literal::signed_int)
        args.integer_literal(e.signed_value);
      else if (e.literal == Literal::unsigned_int)
        args.unsigned_literal(e.unsigned_value);
      else
        args.float_literal(e.float_value);
    } else {
      args.scalar(e.info.scalar, &e.slot);
    }
  }
}

void LaunchArgs::launch(const Kernel& kernel, const LaunchConfig& config) {
  resolve(kernel, config);
  fill(kernel_args_);
  kernel.launch(config, kernel_args_);
}

float LaunchArgs::launch_timed(const Kernel& kernel, const LaunchConfig& config) {
  resolve(kernel, config);
  fill(kernel_args_);
  return kernel.launch_timed(config, kernel_args_);
}

}  // namespace cudakit::python
