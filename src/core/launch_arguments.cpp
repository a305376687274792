// Each launch argument against its parameter. The path that succeeds only
// compares small fields; the messages are built only when something is wrong.
#include "core/launch_arguments.hpp"

#include <charconv>
#include <cstring>
#include <string>

#include "core/array_view_match.hpp"
#include "core/scalar_convert.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

using Arg = KernelArgs::Arg;
using Kind = KernelArgs::Kind;

// The C spelling of a scalar type, for messages.
const char* c_name(ScalarType t) {
  switch (t) {
    case ScalarType::boolean:
      return "bool";
    case ScalarType::i8:
      return "int8_t";
    case ScalarType::u8:
      return "uint8_t";
    case ScalarType::i16:
      return "short";
    case ScalarType::u16:
      return "unsigned short";
    case ScalarType::i32:
      return "int";
    case ScalarType::u32:
      return "unsigned int";
    case ScalarType::i64:
      return "int64_t";
    case ScalarType::u64:
      return "uint64_t";
    case ScalarType::f16:
      return "__half";
    case ScalarType::bf16:
      return "__nv_bfloat16";
    case ScalarType::f32:
      return "float";
    case ScalarType::f64:
      return "double";
    case ScalarType::unknown:
      break;
  }
  return "value";
}

// "a float", "an int", "an unsigned int", "a uint8_t".
std::string with_article(const std::string& noun) {
  const bool vowel = !noun.empty() &&
                     (std::strchr("aeioAEIO", noun[0]) != nullptr || noun.starts_with("unsigned"));
  return (vowel ? "an " : "a ") + noun;
}

// The parameter's type as the source wrote it (without a top-level const).
std::string param_type_name(const Param& p) {
  std::string t = p.type.empty() ? std::string(c_name(p.scalar)) : p.type;
  if (t.starts_with("const ")) t.erase(0, 6);
  return t;
}

std::string format_double(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string literal_text(const Arg& a, const void* bytes) {
  switch (a.kind) {
    case Kind::integer_literal: {
      long long v;
      std::memcpy(&v, bytes, sizeof v);
      return "the integer " + std::to_string(v);
    }
    case Kind::unsigned_literal: {
      unsigned long long v;
      std::memcpy(&v, bytes, sizeof v);
      return "the integer " + std::to_string(v);
    }
    default: {
      double v;
      std::memcpy(&v, bytes, sizeof v);
      return "the float " + format_double(v);
    }
  }
}

std::string describe_arg(const Arg& a, const void* bytes) {
  switch (a.kind) {
    case Kind::pointer:
      return std::strcmp(a.type_name, "pointer") == 0
                 ? std::string("a pointer")
                 : with_article(a.type_name) + " (a device pointer)";
    case Kind::host:
      return with_article(a.type_name) + "(host data) transfer (a pointer)";
    case Kind::scalar:
      return with_article(c_name(a.scalar)) + " (" + std::to_string(a.size) + " bytes)";
    case Kind::aggregate:
      return "a " + std::to_string(a.size) + "-byte " + a.type_name;
    case Kind::integer_literal:
    case Kind::unsigned_literal:
    case Kind::float_literal:
      return literal_text(a, bytes);
  }
  return "a value";
}

std::string mismatch_hint(const Param& p, const Arg& a) {
  if (p.kind == ParamKind::pointer)
    return "pass a DeviceBuffer, an Array, a device pointer, or In/Out/InOut(host data) for a "
           "pointer parameter";
  if (p.kind == ParamKind::pointer_or_u64)
    return "pass a device pointer / DeviceBuffer, or a 64-bit integer";
  if (p.kind == ParamKind::aggregate)
    return "pass a struct of exactly " + std::to_string(p.size) +
           " bytes with the same members and padding as the kernel's parameter type";
  // A scalar parameter.
  const bool literal = a.kind == Kind::integer_literal || a.kind == Kind::unsigned_literal ||
                       a.kind == Kind::float_literal;
  if (a.kind != Kind::scalar && !literal)
    return "the parameter is a value, not a pointer or struct: pass " +
           with_article(param_type_name(p));
  if (p.scalar == ScalarType::unknown)
    return "the parameter's type is not known (compiled code without its source): pass a value "
           "of a fixed C type of " +
           std::to_string(p.size) + " bytes";
  if (a.kind == Kind::float_literal && (is_integer(p.scalar) || p.scalar == ScalarType::boolean))
    return "the parameter is an integer: pass an integer (int(x)), or declare the parameter "
           "float or double";
  if (literal && is_floating(p.scalar))
    return "declare the parameter double (or a wider type), or pass a value the " +
           param_type_name(p) + " holds";
  if (literal)
    return "pass a value in the range of " + with_article(param_type_name(p)) +
           ", or declare the parameter with a wider type (long long, unsigned long long)";
  if (p.scalar == ScalarType::f32 && a.scalar == ScalarType::f64)
    return "pass 1.0f, not 1.0, for a float parameter (or static_cast<float>(x))";
  if (is_integer(p.scalar) && is_floating(a.scalar))
    return "the parameter is an integer: pass one, e.g. static_cast<" +
           std::string(c_name(p.scalar)) + ">(x)";
  if (is_floating(p.scalar) && is_integer(a.scalar))
    return "the parameter is floating point: pass 2.0f (float) or 2.0 (double), not 2, or cast";
  if (is_integer(p.scalar) && is_integer(a.scalar))
    return "the value does not fit the parameter's type (wider than it, or a negative value for "
           "an unsigned parameter, or an unsigned one past the signed maximum): pass a value of "
           "the parameter's type, e.g. static_cast<" +
           std::string(c_name(p.scalar)) + ">(n) after checking its range";
  return "pass " + with_article(c_name(p.scalar));
}

[[noreturn]] void argument_error(const Kernel::State& k, const LaunchConfig& c, std::size_t i,
                                 const Arg& a, const void* bytes, const std::string& why = {}) {
  const Param& p = k.params.params[i];
  throw ArgumentError(launch_context(k, c),
                      p.describe(i) + ": passed " + describe_arg(a, bytes) + why +
                          "; the kernel is " + k.name + k.params.signature(),
                      mismatch_hint(p, a));
}

// Why a literal does not fit, after "passed the integer 4294967296".
std::string literal_refusal(const Param& p, LiteralFit fit) {
  const std::string type = with_article(param_type_name(p));
  switch (fit) {
    case LiteralFit::out_of_range:
      return ", which does not fit " + type;
    case LiteralFit::inexact:
      return ", which " + type + " cannot hold exactly";
    case LiteralFit::not_integer:
      return ", and an integer parameter takes no floating-point value";
    case LiteralFit::unknown_type:
      return ", and the parameter's type is not known, so a number without a type cannot be "
             "converted to it";
    case LiteralFit::ok:
      break;
  }
  return {};
}

LiteralFit convert_literal(const Arg& a, const void* bytes, ScalarType to, std::uint64_t* slot) {
  switch (a.kind) {
    case Kind::integer_literal: {
      long long v;
      std::memcpy(&v, bytes, sizeof v);
      return convert_integer_literal(v, to, slot);
    }
    case Kind::unsigned_literal: {
      unsigned long long v;
      std::memcpy(&v, bytes, sizeof v);
      return convert_unsigned_literal(v, to, slot);
    }
    default: {
      double v;
      std::memcpy(&v, bytes, sizeof v);
      return convert_float_literal(v, to, slot);
    }
  }
}

// The bytes for a scalar parameter.
const void* scalar_value(const Kernel::State& k, const LaunchConfig& c, std::size_t i,
                         const Param& p, const Arg& a, const void* bytes, std::uint64_t* slot) {
  switch (a.kind) {
    case Kind::scalar:
      if (p.scalar == ScalarType::unknown || p.scalar == ScalarType::f16 ||
          p.scalar == ScalarType::bf16) {
        // Host code has no standard half type: any 2-byte value (its bits)
        // passes for a half, as does any value of the size of a parameter
        // whose type is not known.
        if (a.size != p.size) argument_error(k, c, i, a, bytes);
        return bytes;
      }
      if (a.scalar == p.scalar) return bytes;
      if (!convert_typed(a.scalar, bytes, p.scalar, slot)) argument_error(k, c, i, a, bytes);
      return slot;
    case Kind::aggregate:
      // A value type of no scalar type (a 2-byte __half) for a half or untyped parameter.
      if ((p.scalar == ScalarType::unknown || p.scalar == ScalarType::f16 ||
           p.scalar == ScalarType::bf16) &&
          a.size == p.size)
        return bytes;
      argument_error(k, c, i, a, bytes);
    case Kind::integer_literal:
    case Kind::unsigned_literal:
    case Kind::float_literal: {
      const LiteralFit fit = convert_literal(a, bytes, p.scalar, slot);
      if (fit != LiteralFit::ok) argument_error(k, c, i, a, bytes, literal_refusal(p, fit));
      return slot;
    }
    case Kind::pointer:
    case Kind::host:
      break;
  }
  argument_error(k, c, i, a, bytes);
}

// The bytes for a parameter that is a pointer or a 64-bit integer (PTX .u64
// without source; any 8-byte parameter of a cubin, whose driver gives sizes
// only, when the source names no type cudakit classifies): a pointer, an
// 8-byte integer, an integer literal, or an 8-byte struct (a float2, an int2).
const void* pointer_or_u64_value(const Kernel::State& k, const LaunchConfig& c, std::size_t i,
                                 const Arg& a, const void* bytes, std::uint64_t* slot) {
  switch (a.kind) {
    case Kind::pointer:
      return bytes;
    case Kind::host:
      return slot;
    case Kind::scalar:
      if (a.size == 8 && is_integer(a.scalar)) return bytes;
      break;
    case Kind::integer_literal:
    case Kind::unsigned_literal:
      return bytes;  // 8 bytes, two's complement
    case Kind::aggregate:
      if (a.size == 8) return bytes;
      break;
    default:
      break;
  }
  argument_error(k, c, i, a, bytes);
}

}  // namespace

std::string launch_context(const Kernel::State& k, const LaunchConfig& c) {
  return "launching kernel " + k.name + " (" + c.describe() + ") on " + k.device.describe();
}

void check_arguments(const Kernel::State& k, const LaunchConfig& c, const KernelArgs& args,
                     void** values, std::uint64_t* converted) {
  const auto& params = k.params.params;
  const auto list = args.args();
  if (list.size() != params.size())
    throw ArgumentError(launch_context(k, c),
                        "expected " + std::to_string(params.size()) + " argument" +
                            (params.size() == 1 ? "" : "s") + ", got " +
                            std::to_string(list.size()) + "; the kernel is " + k.name +
                            k.params.signature(),
                        "pass one argument per kernel parameter, in order");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    const Arg& a = list[i];
    const void* bytes = args.value(a);
    const void* value = bytes;
    if (a.type_name == empty_device_buffer) [[unlikely]]
      throw ArgumentError(launch_context(k, c),
                          p.describe(i) +
                              ": passed a DeviceBuffer that holds no memory (default-constructed, "
                              "moved-from, or of 0 elements); the kernel would get a null pointer",
                          "allocate the buffer first (DeviceBuffer<T>(count) with count > 0), "
                          "and do not use a buffer after moving it away");
    switch (p.kind) {
      case ParamKind::pointer:
        if (a.kind == Kind::host)
          value = &converted[i];
        else if (a.kind != Kind::pointer)
          argument_error(k, c, i, a, bytes);
        break;
      case ParamKind::pointer_or_u64:
        value = pointer_or_u64_value(k, c, i, a, bytes, &converted[i]);
        break;
      case ParamKind::scalar:
        value = scalar_value(k, c, i, p, a, bytes, &converted[i]);
        break;
      case ParamKind::aggregate:
        if (a.size != p.size) argument_error(k, c, i, a, bytes);
        // A value of the right size is accepted for a parameter whose type the
        // source did not name; a named struct takes a struct.
        if (a.kind == Kind::host || (a.kind != Kind::aggregate && !p.type.empty()))
          argument_error(k, c, i, a, bytes);
        if (const char* fitted = k.fitting_view_types[i].load(std::memory_order_relaxed);
            !p.type.empty() && (fitted == nullptr || fitted != a.type_name)) {
          if (auto hint = array_view_element_mismatch(p.type, k.view_dtypes[i], a.type_name))
            throw ArgumentError(launch_context(k, c),
                                p.describe(i) + ": passed " + describe_arg(a, bytes) +
                                    "; the kernel is " + k.name + k.params.signature(),
                                *hint);
          k.fitting_view_types[i].store(a.type_name, std::memory_order_relaxed);
        }
        break;
    }
    values[i] = const_cast<void*>(value);
  }
}

}  // namespace cudakit::detail
