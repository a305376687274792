// Function: PyCUDA's kernel object. __call__ and the prepared calls read
// their keywords and convert their arguments in C++ (arg_convert.cpp), then
// launch through the core's checked launch (Kernel::launch).
#include "function.hpp"

#include <nanobind/stl/string.h>

#include <atomic>
#include <climits>
#include <stdexcept>
#include <string>

#include "arg_convert.hpp"
#include "cudakit/cache_config.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/occupancy.hpp"
#include "driver_types.hpp"
#include "errors.hpp"
#include "vectorcall_slot.hpp"

namespace cudakit::python {
namespace {

std::atomic<bool> debug_launches{false};

// PyCUDA's function_attribute numbering (CUfunction_attribute).
enum FunctionAttribute {
  max_threads_per_block = 0,
  shared_size_bytes = 1,
  const_size_bytes = 2,
  local_size_bytes = 3,
  num_regs = 4,
  ptx_version = 5,
  binary_version = 6,
  cache_mode_ca = 7,
  max_dynamic_shared_size_bytes = 8,
};

struct Keys {
  PyObject* block = PyUnicode_InternFromString("block");
  PyObject* grid = PyUnicode_InternFromString("grid");
  PyObject* stream = PyUnicode_InternFromString("stream");
  PyObject* shared = PyUnicode_InternFromString("shared");
  PyObject* texrefs = PyUnicode_InternFromString("texrefs");
  PyObject* time_kernel = PyUnicode_InternFromString("time_kernel");
  PyObject* shared_size = PyUnicode_InternFromString("shared_size");
};
const Keys& keys() {
  static const Keys k;
  return k;
}

unsigned extent(PyObject* value, const char* what) {
  // ints and numpy integers (anything with __index__); anything else is a
  // TypeError, as PyCUDA's (Boost.Python's) conversion to unsigned raises.
  nb::object index = nb::steal(PyBool_Check(value) ? nullptr : PyNumber_Index(value));
  if (!index.is_valid()) {
    PyErr_Clear();
    const std::string message = std::string("reading ") + what + ": " + what +
                                " entries must be ints, got " + Py_TYPE(value)->tp_name + " " +
                                nb::cast<std::string>(nb::repr(value)) + "\n  hint: pass " + what +
                                "=(x, y, z) with positive ints (int(x) for a float)";
    throw nb::type_error(message.c_str());
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || v <= 0 || v > 0xffffffffLL)
    throw ArgumentError(std::string("reading ") + what,
                        std::string(what) + " extent " + nb::cast<std::string>(nb::repr(value)) +
                            " is not a positive 32-bit number",
                        std::string("pass ") + what + "=(x, y, z) with every extent >= 1");
  return static_cast<unsigned>(v);
}

// Dynamic shared memory in bytes: an int from 0 to 2**32 - 1 (the device's
// limit is checked by the launch).
std::uint32_t shared_bytes(PyObject* value, const char* what) {
  nb::object index = nb::steal(PyBool_Check(value) ? nullptr : PyNumber_Index(value));
  if (!index.is_valid()) {
    PyErr_Clear();
    throw ArgumentError(std::string("reading ") + what,
                        std::string(what) +
                            " must be an int (bytes of dynamic shared memory), got " +
                            Py_TYPE(value)->tp_name,
                        std::string("pass ") + what + "=0 or a number of bytes");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || v < 0 || v > 0xffffffffLL)
    throw ArgumentError(std::string("reading ") + what,
                        std::string(what) + "=" + nb::cast<std::string>(nb::repr(value)) +
                            " is not a number of bytes from 0 to 4294967295",
                        std::string("pass ") + what +
                            "= the bytes of dynamic shared memory the kernel uses (the device "
                            "allows 48 KiB, more after "
                            "set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n))");
  return static_cast<std::uint32_t>(v);
}

// (x,), (x, y), (x, y, z), or an int.
Dim3 dims(PyObject* value, const char* what) {
  if (PyLong_Check(value) ||
      (!PyTuple_Check(value) && !PyList_Check(value) && PyIndex_Check(value)))
    return Dim3(extent(value, what));
  if (PyTuple_Check(value) || PyList_Check(value)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(value);
    PyObject** items = PySequence_Fast_ITEMS(value);
    if (n >= 1 && n <= 3) {
      Dim3 d;
      d.x = extent(items[0], what);
      if (n > 1) d.y = extent(items[1], what);
      if (n > 2) d.z = extent(items[2], what);
      return d;
    }
  }
  throw ArgumentError(std::string("reading ") + what,
                      std::string(what) + " must be a tuple of 1 to 3 ints, got " +
                          nb::cast<std::string>(nb::repr(value)),
                      std::string("pass e.g. ") + what + "=(256, 1, 1)");
}

// texrefs=: TextureReferences (the CPU backend's, the only ones there are:
// CUDA 12 removed them) are bound already, through their module's record;
// anything else is refused.
void refuse_texrefs(PyObject* value) {
  if (!value || value == Py_None || !PyObject_IsTrue(value)) return;
  nb::handle list(value);
  for (nb::handle item : list) {
    if (nb::hasattr(item, "_cudakit_texture_reference")) continue;
    throw NotSupported("launching with texrefs",
                       "texrefs must hold the TextureReferences of SourceModule.get_texref "
                       "(texture references exist on the CPU backend only: CUDA 12 removed "
                       "them), got " +
                           nb::cast<std::string>(nb::repr(item)),
                       "read the data through a pointer argument (const T* __restrict__ gets the "
                       "read-only cache), or use a texture object");
  }
}

void after_launch(const Kernel& kernel, const LaunchConfig& config) {
  if (!debug_launches.load(std::memory_order_relaxed)) return;
  nb::gil_scoped_release unlocked;
  const Device& d = kernel.device();
  (config.stream.native ? Stream::wrap(d, config.stream.native) : d.default_stream()).synchronize();
}

nb::object launch(const Function& f, KernelArgs& args, const LaunchConfig& config, bool timed) {
  if (timed) {
    float ms;
    {
      nb::gil_scoped_release unlocked;
      ms = f.kernel.launch_timed(config, args);
    }
    return nb::float_(ms / 1000.0);
  }
  if (args.has_host_transfers()) {
    // The launch waits for the copies back: let other Python threads run.
    nb::gil_scoped_release unlocked;
    f.kernel.launch(config, args);
  } else {
    f.kernel.launch(config, args);
  }
  after_launch(f.kernel, config);
  return nb::none();
}

// The launch keywords, in the order they are read (and the index of each
// in a call's LaunchKeywords).
enum LaunchKey { key_block, key_grid, key_stream, key_shared, key_texrefs, key_time_kernel };
constexpr std::size_t launch_key_count = 6;

PyObject* launch_key_name(std::size_t key) {
  const Keys& k = keys();
  PyObject* const names[launch_key_count] = {k.block,  k.grid,    k.stream,
                                             k.shared, k.texrefs, k.time_kernel};
  return names[key];
}

// The launch keywords of one call: each one's value (nullptr: not given),
// how many keywords the call gave and how many of them are launch keywords.
struct LaunchKeywords {
  PyObject* values[launch_key_count] = {};
  Py_ssize_t given = 0;
  Py_ssize_t matched = 0;
};

// An extent object seen before is the extents read then: the cache holds
// a reference, and an int or a tuple of ints cannot change.
Dim3 cached_dims(PyObject* value, const char* what, ExtentsCache& cache) {
  if (value == cache.object.ptr()) return cache.value;
  const Dim3 d = dims(value, what);
  bool immutable = PyLong_CheckExact(value);
  if (PyTuple_CheckExact(value)) {
    immutable = true;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); ++i)
      immutable = immutable && PyLong_CheckExact(PyTuple_GET_ITEM(value, i));
  }
  if (immutable) {
    cache.object = nb::borrow(value);
    cache.value = d;
  }
  return d;
}

// `unknown` is set when some of the given keywords are not launch keywords.
LaunchConfig read_launch_keywords(Function& f, const LaunchKeywords& kw, bool& timed,
                                  bool& unknown) {
  LaunchConfig config;
  timed = false;
  PyObject* const* v = kw.values;
  if (v[key_block]) config.block = cached_dims(v[key_block], "block", f.block_cache);
  if (v[key_grid]) config.grid = cached_dims(v[key_grid], "grid", f.grid_cache);
  if (v[key_stream]) config.stream.native = native_stream(v[key_stream]);
  config.shared_bytes = v[key_shared] ? shared_bytes(v[key_shared], "shared") : f.prepared_shared;
  if (v[key_texrefs]) refuse_texrefs(v[key_texrefs]);
  if (v[key_time_kernel]) timed = PyObject_IsTrue(v[key_time_kernel]) == 1;
  unknown = kw.matched != kw.given;
  if (unknown) return config;  // the caller names them
  if (!v[key_block])
    throw ArgumentError("launching kernel " + f.kernel.name(), "no block= was given",
                        "pass block=(threads_x, threads_y, threads_z), e.g. block=(256, 1, 1)");
  return config;
}

[[noreturn]] void refuse_keywords(const Function& f, const std::string& unknown) {
  throw ArgumentError("launching kernel " + f.kernel.name(), "unknown keyword(s): " + unknown,
                      "a launch takes block=, grid=, stream=, shared=, texrefs=, time_kernel=");
}

bool is_launch_keyword(const std::string& name) {
  return name == "block" || name == "grid" || name == "stream" || name == "shared" ||
         name == "texrefs" || name == "time_kernel";
}

nb::object call_with(Function& f, PyObject* const* positional, std::size_t count,
                     const LaunchConfig& config, bool timed) {
  KernelArgs args;  // on the stack: nothing allocated up to KernelArgs::inline_capacity
  ConvertMode mode;
  mode.pointees = &f.pointees;
  convert_args(args, positional, count, f.kernel, mode);
  return launch(f, args, config, timed);
}

nb::object call(Function& f, nb::args positional, nb::kwargs keywords) {
  PyObject* kw = keywords.ptr();
  LaunchKeywords given;
  given.given = PyDict_Size(kw);
  for (std::size_t key = 0; key < launch_key_count; ++key) {
    given.values[key] = PyDict_GetItemWithError(kw, launch_key_name(key));
    if (!given.values[key] && PyErr_Occurred()) throw nb::python_error();
    if (given.values[key]) ++given.matched;
  }
  bool timed = false, has_unknown = false;
  const LaunchConfig config = read_launch_keywords(f, given, timed, has_unknown);
  if (has_unknown) {
    std::string names;
    for (auto [key, value] : keywords) {
      const std::string name = nb::cast<std::string>(key);
      if (!is_launch_keyword(name)) names += (names.empty() ? "" : ", ") + name;
    }
    refuse_keywords(f, names);
  }
  return call_with(f, PySequence_Fast_ITEMS(positional.ptr()),
                   static_cast<std::size_t>(PyTuple_GET_SIZE(positional.ptr())), config, timed);
}

// Where each launch keyword sits in a vectorcall's keyword names (-1: not
// given). Names in a call are interned, as the keys are, so a pointer match
// is the rule and the text comparison is for built-up names.
void match_keyword_names(PyObject* kwnames, KeywordPositions& out) {
  out.position.fill(-1);
  out.matched = 0;
  const Py_ssize_t given = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < given; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    std::size_t found = launch_key_count;
    for (std::size_t key = 0; key < launch_key_count && found == launch_key_count; ++key)
      if (launch_key_name(key) == name) found = key;
    for (std::size_t key = 0; key < launch_key_count && found == launch_key_count; ++key)
      if (PyUnicode_Compare(name, launch_key_name(key)) == 0) found = key;
    if (found != launch_key_count && out.position[found] < 0) {
      out.position[found] = static_cast<std::int16_t>(i);
      ++out.matched;
    }
  }
}

// f(*args, block=..., grid=...) through the vectorcall protocol: Python
// hands over the arguments as an array and the keyword names as a tuple, so
// a launch builds no argument tuple, no kwargs dict and no bound method. A
// call site passes the same keyword-name tuple (a constant of its code) on
// every call: its matching to the launch keywords is kept with the Function.
PyObject* vectorcall_impl(PyObject* self, PyObject* const* args, std::size_t nargsf,
                          PyObject* kwnames) noexcept {
  try {
    Function& f = *nb::inst_ptr<Function>(self);
    const Py_ssize_t count = PyVectorcall_NARGS(nargsf);
    LaunchKeywords given;
    if (kwnames) {
      KeywordPositions& positions = f.keyword_positions;
      if (kwnames != positions.names.ptr()) {
        match_keyword_names(kwnames, positions);
        positions.names = nb::borrow(kwnames);
      }
      given.given = PyTuple_GET_SIZE(kwnames);
      given.matched = positions.matched;
      for (std::size_t key = 0; key < launch_key_count; ++key)
        if (positions.position[key] >= 0) given.values[key] = args[count + positions.position[key]];
    }
    bool timed = false, has_unknown = false;
    const LaunchConfig config = read_launch_keywords(f, given, timed, has_unknown);
    if (has_unknown) {
      std::string names;
      for (Py_ssize_t i = 0; i < given.given; ++i) {
        const std::string name = nb::cast<std::string>(nb::handle(PyTuple_GET_ITEM(kwnames, i)));
        if (!is_launch_keyword(name)) names += (names.empty() ? "" : ", ") + name;
      }
      refuse_keywords(f, names);
    }
    return call_with(f, args, static_cast<std::size_t>(count), config, timed).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (...) {
    raise_current_exception();
  }
  return nullptr;
}

// prepared_call / prepared_async_call / prepared_timed_call: the grid and
// block (and stream) come first, then the kernel's arguments; the only
// keyword is shared_size. `keyword(i)` gives the i-th keyword's name and value.
template <class Keyword>
nb::object prepared(Function& f, PyObject* grid, PyObject* block, PyObject* stream,
                    PyObject* const* positional, std::size_t count, Py_ssize_t keywords,
                    Keyword keyword, bool timed, const char* use) {
  LaunchConfig config;
  config.grid = cached_dims(grid, "grid", f.grid_cache);
  config.block = cached_dims(block, "block", f.block_cache);
  config.stream.native = native_stream(stream);
  config.shared_bytes = f.prepared_shared;
  for (Py_ssize_t i = 0; i < keywords; ++i) {
    const auto [key, value] = keyword(i);
    if (key == keys().shared_size || nb::cast<std::string>(nb::handle(key)) == "shared_size")
      config.shared_bytes = shared_bytes(value, "shared_size");
    else
      throw ArgumentError(use, "unknown keyword " + nb::cast<std::string>(nb::handle(key)),
                          "prepared calls take shared_size= only");
  }
  if (!f.prepared_format.empty() && f.prepared_format.size() != count)
    throw ArgumentError(use,
                        "prepare() declared " + std::to_string(f.prepared_format.size()) +
                            " arguments ('" + f.prepared_format + "'), the call passes " +
                            std::to_string(count),
                        "pass one argument per declared type");
  KernelArgs args;
  ConvertMode mode;
  mode.ints_are_addresses = true;
  mode.pointees = &f.pointees;
  convert_args(args, positional, count, f.kernel, mode);
  return launch(f, args, config, timed);
}

// The prepared calls as METH_FASTCALL methods: like __call__'s vectorcall,
// no argument tuple or kwargs dict is built.
template <bool WithStream>
PyObject* prepared_fastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                            PyObject* kwnames) noexcept {
  const char* use = WithStream ? "prepared_async_call" : "prepared_call";
  try {
    constexpr Py_ssize_t leading = WithStream ? 3 : 2;
    if (nargs < leading)
      throw nb::type_error(WithStream ? "prepared_async_call(grid, block, stream, *args) takes at "
                                        "least 3 positional arguments"
                                      : "prepared_call(grid, block, *args) takes at least 2 "
                                        "positional arguments");
    Function& f = *nb::inst_ptr<Function>(self);
    const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    return prepared(
               f, args[0], args[1], WithStream ? args[2] : Py_None, args + leading,
               static_cast<std::size_t>(nargs - leading), keywords,
               [&](Py_ssize_t i) {
                 return std::pair<PyObject*, PyObject*>(PyTuple_GET_ITEM(kwnames, i),
                                                        args[nargs + i]);
               },
               false, use)
        .release()
        .ptr();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (...) {
    raise_current_exception();
  }
  return nullptr;
}

PyMethodDef prepared_call_def = {
    "prepared_call",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&prepared_fastcall<false>)),
    METH_FASTCALL | METH_KEYWORDS,
    "prepared_call(grid, block, *args, shared_size=None): launches with the types given to "
    "prepare()."};
PyMethodDef prepared_async_call_def = {
    "prepared_async_call",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&prepared_fastcall<true>)),
    METH_FASTCALL | METH_KEYWORDS,
    "prepared_async_call(grid, block, stream, *args, shared_size=None): prepared_call on "
    "`stream`."};

nb::object prepared_from_tuple(Function& f, nb::handle grid, nb::handle block, nb::handle stream,
                               nb::args positional, nb::kwargs keywords, bool timed,
                               const char* use) {
  nb::list items = nb::list(keywords.attr("items")());
  return prepared(
      f, grid.ptr(), block.ptr(), stream.ptr(), PySequence_Fast_ITEMS(positional.ptr()),
      static_cast<std::size_t>(PyTuple_GET_SIZE(positional.ptr())),
      static_cast<Py_ssize_t>(nb::len(items)),
      [&](Py_ssize_t i) {
        nb::handle pair = items[static_cast<std::size_t>(i)];
        return std::pair<PyObject*, PyObject*>(PyTuple_GET_ITEM(pair.ptr(), 0),
                                               PyTuple_GET_ITEM(pair.ptr(), 1));
      },
      timed, use);
}

std::int64_t attribute(const Function& f, int which) {
  const KernelAttributes a = f.kernel.attributes();
  switch (which) {
    case max_threads_per_block:
      return a.max_threads_per_block;
    case shared_size_bytes:
      return static_cast<std::int64_t>(a.static_shared_bytes);
    case const_size_bytes:
      return static_cast<std::int64_t>(a.const_bytes);
    case local_size_bytes:
      return static_cast<std::int64_t>(a.local_bytes);
    case num_regs:
      return a.registers;
    case ptx_version:
      return a.ptx_version;
    case binary_version:
      return a.binary_version;
    case cache_mode_ca:
      return 0;
    case max_dynamic_shared_size_bytes:
      return static_cast<std::int64_t>(a.max_dynamic_shared_bytes);
    default:
      throw ArgumentError("Function.get_attribute", "unknown attribute " + std::to_string(which),
                          "use a member of cudakit.driver.function_attribute");
  }
}

}  // namespace

void set_debug_launches(bool on) noexcept { debug_launches = on; }

// A resource's block limit for Python: None where the resource sets none.
nb::object limit_or_none(int blocks) { return blocks == INT_MAX ? nb::none() : nb::cast(blocks); }

void bind_occupancy(nb::module_& m) {
  nb::class_<Occupancy>(m, "Occupancy",
                        "Function.occupancy(block, shared): resident blocks and warps per "
                        "multiprocessor and the resource that limits them.")
      .def_ro("block_size", &Occupancy::block_size)
      .def_ro("active_blocks_per_multiprocessor", &Occupancy::active_blocks_per_multiprocessor)
      .def_ro("active_warps_per_multiprocessor", &Occupancy::active_warps_per_multiprocessor)
      .def_ro("max_warps_per_multiprocessor", &Occupancy::max_warps_per_multiprocessor)
      .def_ro("fraction", &Occupancy::fraction, "active / max warps per multiprocessor")
      .def_prop_ro("limit_by_warps",
                   [](const Occupancy& o) { return limit_or_none(o.limit_by_warps); })
      .def_prop_ro("limit_by_blocks",
                   [](const Occupancy& o) { return limit_or_none(o.limit_by_blocks); })
      .def_prop_ro("limit_by_registers",
                   [](const Occupancy& o) { return limit_or_none(o.limit_by_registers); })
      .def_prop_ro("limit_by_shared_memory",
                   [](const Occupancy& o) { return limit_or_none(o.limit_by_shared_memory); })
      .def_ro("limited_by", &Occupancy::limited_by,
              "'registers', 'shared memory', 'threads (warps) per multiprocessor' or 'blocks per "
              "multiprocessor'")
      .def("__str__", &Occupancy::to_string)
      .def("__repr__",
           [](const Occupancy& o) { return "<cudakit Occupancy " + o.to_string() + ">"; });
}

PyObject* function_vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf,
                              PyObject* kwnames) noexcept {
  return vectorcall_impl(self, args, nargsf, kwnames);
}

nb::object wrap_function(Function f) {
  nb::object instance = nb::cast(std::move(f));
  enable_vectorcall(instance, &nb::inst_ptr<Function>(instance)->vectorcall, "Function");
  return instance;
}

void bind_function(nb::module_& m) {
  bind_occupancy(m);
  auto cls = nb::class_<Function>(m, "Function", "A kernel of a SourceModule (PyCUDA's Function).");
  cls.def("__call__", &call, nb::arg("args"), nb::arg("kwargs"),
          "Launches: f(*args, block=(x, y, z), grid=(x, y), stream=None, shared=0, "
          "texrefs=[], time_kernel=False); returns the kernel's time in seconds when "
          "time_kernel is true.")
      .def(
          "prepare",
          [](nb::handle self, nb::handle arg_types, nb::handle shared, nb::handle texrefs,
             nb::handle block) {
            Function& f = nb::cast<Function&>(self);
            if (!block.is_none())
              throw ArgumentError("Function.prepare",
                                  "block= is not a prepare() argument (PyCUDA dropped it)",
                                  "pass the block to the call: prepared_call(grid, block, *args)");
            refuse_texrefs(texrefs.ptr());
            std::string format;
            if (PyUnicode_Check(arg_types.ptr())) {
              format = nb::cast<std::string>(arg_types);
            } else {
              nb::object dtype = nb::module_::import_("numpy").attr("dtype");
              for (nb::handle t : arg_types) format += nb::cast<std::string>(dtype(t).attr("char"));
            }
            f.prepared_format = format;
            if (!shared.is_none()) f.prepared_shared = shared_bytes(shared.ptr(), "shared");
            return nb::borrow(self);
          },
          nb::arg("arg_types"), nb::arg("shared") = nb::none(), nb::arg("texrefs") = nb::list(),
          nb::kw_only(), nb::arg("block") = nb::none(),
          "Declares the argument types (a format string or a list of dtypes) and the dynamic "
          "shared memory of prepared calls, as PyCUDA's prepare(arg_types, shared=None, "
          "texrefs=[]).")
      .def(
          "prepared_timed_call",
          [](Function& f, nb::handle grid, nb::handle block, nb::args a, nb::kwargs kw) {
            nb::object seconds =
                prepared_from_tuple(f, grid, block, nb::none(), a, kw, true, "prepared_timed_call");
            // PyCUDA returns a callable that gives the time once the kernel is done.
            return nb::cpp_function([seconds]() { return seconds; });
          },
          nb::arg("grid"), nb::arg("block"), nb::arg("args"), nb::arg("kwargs"))
      .def(
          "param_set_texref",
          [](nb::handle, nb::handle texref) {
            nb::list one;
            one.append(texref);
            refuse_texrefs(one.ptr());
          },
          nb::arg("texref"),
          "PyCUDA's param_set_texref: the CPU backend's references are bound already; checks "
          "that texref is one.")
      .def("get_attribute", &attribute, nb::arg("attribute"))
      .def(
          "set_attribute",
          [](const Function& f, int which, std::int64_t value) {
            if (which != max_dynamic_shared_size_bytes)
              throw NotSupported("Function.set_attribute",
                                 "only MAX_DYNAMIC_SHARED_SIZE_BYTES can be set",
                                 "set function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES");
            f.kernel.set_max_dynamic_shared_memory(static_cast<std::size_t>(value));
          },
          nb::arg("attribute"), nb::arg("value"))
      .def(
          "set_cache_config",
          [](const Function& f, long long config) {
            f.kernel.set_cache_preference(
                cache_preference_from_int(config, "Function.set_cache_config"));
          },
          nb::arg("config"),
          "Sets the kernel's L1 / shared memory preference (func_cache; cuFuncSetCacheConfig). "
          "A hint: the driver sizes the split for each launch's shared memory where it must.")
      .def_prop_ro(
          "cache_config",
          [](const Function& f) { return static_cast<int>(f.kernel.cache_preference()); },
          "The func_cache value last set with set_cache_config (PREFER_NONE at first).")
      .def(
          "set_shared_config",
          [](const Function&, long long config) {
            // Checked, then dropped: the driver's per-kernel call is deprecated
            // and every GPU cudakit runs on has fixed 4-byte banks.
            (void)shared_memory_bank_size_from_int(config, "Function.set_shared_config");
          },
          nb::arg("config"),
          "Checks a shared_config value; banks are fixed at 4 bytes on every GPU since "
          "Maxwell, so nothing changes.")
      .def(
          "occupancy",
          [](const Function& f, nb::handle block, std::size_t shared) {
            return f.kernel.occupancy(dims(block.ptr(), "block"), shared);
          },
          nb::arg("block"), nb::arg("shared") = 0,
          "Occupancy of blocks of `block` threads (an int or (x, y, z)) with `shared` bytes of "
          "dynamic shared memory: blocks and warps per multiprocessor, the fraction of the "
          "multiprocessor's warps, and the limiting resource (limited_by).")
      .def_prop_ro("num_regs", [](const Function& f) { return attribute(f, num_regs); })
      .def_prop_ro("shared_size_bytes",
                   [](const Function& f) { return attribute(f, shared_size_bytes); })
      .def_prop_ro("local_size_bytes",
                   [](const Function& f) { return attribute(f, local_size_bytes); })
      .def_prop_ro("const_size_bytes",
                   [](const Function& f) { return attribute(f, const_size_bytes); })
      .def_prop_ro("max_threads_per_block",
                   [](const Function& f) { return attribute(f, max_threads_per_block); })
      .def_prop_ro("name", [](const Function& f) { return f.kernel.name(); })
      .def_prop_rw(
          "_pickle_origin", [](const Function& f) { return f.pickle_origin; },
          [](Function& f, nb::object origin) { f.pickle_origin = std::move(origin); },
          "How pickle rebuilds this kernel (set by SourceModule.get_function).")
      .def_prop_ro(
          "signature",
          [](const Function& f) { return f.kernel.name() + f.kernel.params().signature(); })
      .def("__repr__", [](const Function& f) {
        return "<cudakit Function " + f.kernel.name() + f.kernel.params().signature() + ">";
      });
  for (PyMethodDef* def : {&prepared_call_def, &prepared_async_call_def}) {
    nb::object method =
        nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def));
    if (!method.is_valid()) throw nb::python_error();
    cls.attr(def->ml_name) = method;
  }

  m.def("_set_debug", &set_debug_launches, nb::arg("on"));
}

}  // namespace cudakit::python
