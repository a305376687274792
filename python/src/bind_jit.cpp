// The C++ side of cudakit.cuda: a translated kernel compiled and loaded once
// (JitKernel), its launch from the Python objects themselves (converted by
// the one converter, arg_convert.cpp, against the declared parameter
// types), and the device arrays DeviceNDArray wraps
// (cudakit::Array, so they share the pool and streams with the C++ layer).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "arg_convert.hpp"
#include "array_allocator.hpp"
#include "bindings.hpp"
#include "cudakit/array.hpp"
#include "cudakit/array_view.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/compile_options.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/module.hpp"
#include "cudakit/program.hpp"
#include "errors.hpp"
#include "jit_array.hpp"
#include "vectorcall_slot.hpp"

namespace cudakit::python {
namespace {

// The largest parameter list a kernel translated from Python may have; the
// launch keeps its argument arrays on the stack.
constexpr std::size_t max_jit_params = 64;

Dim3 to_dim3(const std::tuple<unsigned, unsigned, unsigned>& t) {
  return Dim3{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
}

DType jit_dtype(const std::string& name) {
  const auto dtype = parse_dtype(name == "boolean" ? std::string("bool") : name);
  if (!dtype) throw ArgumentError("cuda.jit", "unsupported parameter dtype '" + name + "'");
  return *dtype;
}

class JitKernel {
 public:
  // `params`: what the translator declared for each parameter (the types
  // Numba's rules gave the arguments). The launch converts each argument to
  // its declared type (arg_convert.cpp); the layout read back from the
  // compiled code cannot tell a 64-bit integer from a pointer.
  JitKernel(const std::string& source, const std::string& name, std::vector<JitParam> params,
            bool debug, bool line_info, bool fast_math, int max_registers, bool cooperative)
      : JitKernel(compile_source(source, debug, line_info, fast_math, max_registers), name,
                  std::move(params), cooperative) {}

  // The kernel `name` of a module already built: the translated kernel
  // linked with compiled code (cuda.jit(link=[.ptx, .cubin, ...])).
  JitKernel(Module module, const std::string& name, std::vector<JitParam> params, bool cooperative)
      : module_(std::move(module)),
        kernel_(module_.kernel(name)),
        name_(name),
        cooperative_(cooperative),
        params_(std::move(params)) {
    const std::size_t compiled = kernel_.params().params.size();
    if (compiled > max_jit_params || compiled != params_.size())
      throw ArgumentError("cuda.jit", "the compiled kernel has " + std::to_string(compiled) +
                                          " parameters, the translation declared " +
                                          std::to_string(params_.size()) + " (at most " +
                                          std::to_string(max_jit_params) + ")");
    mode_.declared = &params_;
    if (Device::current().backend_kind() == BackendKind::cuda)
      fault_connected_ = connect_fault_text(module_);
  }

  // Once the launch's work has completed (a debug kernel's launch waits
  // for it): a thread that failed a check left its text and ended itself;
  // that text is raised here as the launch's KernelFault (the builtin's
  // subclass). On the CPU backend the launch itself raised it.
  void check_fault() const {
    if (fault_connected_) raise_pending_fault(name_);
  }

  // The first call's launch (the dispatcher staged host arrays on the device).
  void launch(const std::tuple<unsigned, unsigned, unsigned>& grid,
              const std::tuple<unsigned, unsigned, unsigned>& block, std::uint32_t shared_bytes,
              std::uintptr_t stream, nb::tuple args) const {
    LaunchConfig config;
    config.grid = to_dim3(grid);
    config.block = to_dim3(block);
    config.shared_bytes = shared_bytes;
    config.stream = StreamRef{reinterpret_cast<void*>(stream)};
    launch_objects(config, &PyTuple_GET_ITEM(args.ptr(), 0), nb::len(args));
  }

  // Every launch: the arguments as the Python objects themselves, converted
  // by the one converter against the declared types.
  void launch_objects(const LaunchConfig& config, PyObject* const* args, std::size_t n) const {
    if (fault_connected_) before_launch();
    KernelArgs list;
    convert_args(list, args, n, kernel_, mode_);
    if (cooperative_) {
      LaunchConfig cooperative_config = config;
      cooperative_config.cooperative = true;
      kernel_.launch(cooperative_config, list);
      return;
    }
    kernel_.launch(config, list);
  }

  // A kernel that waits for the whole grid (this_grid().sync()) is launched
  // cooperatively, as Numba does; this is its largest grid.
  long long max_cooperative_grid_blocks(int block_size, std::size_t shared_bytes) const {
    return kernel_.max_cooperative_grid_blocks(block_size, shared_bytes);
  }
  bool cooperative() const { return cooperative_; }

  const std::string& ptx() const { return module_.code().ptx; }
  const std::string& log() const { return module_.log(); }
  std::string arch() const { return module_.code().arch; }
  std::size_t param_count() const { return params_.size(); }
  int max_threads_per_block() const { return kernel_.attributes().max_threads_per_block; }
  // The loaded kernel's resource use, as cuFuncGetAttribute reports it
  // (the CPU backend: its static shared memory; no registers or local memory).
  nb::dict attributes() const {
    const KernelAttributes a = kernel_.attributes();
    nb::dict out;
    out["registers"] = a.registers;
    out["static_shared_bytes"] = a.static_shared_bytes;
    out["local_bytes"] = a.local_bytes;
    out["const_bytes"] = a.const_bytes;
    out["max_threads_per_block"] = a.max_threads_per_block;
    return out;
  }
  // cuda.jit(shared_memory_carveout=...): percent of L1 / shared memory, -1 the default.
  void set_shared_memory_carveout(int percent) const {
    kernel_.set_shared_memory_carveout(percent);
  }
  int max_threads_per_block_cached() const {
    if (max_threads_ < 0) max_threads_ = max_threads_per_block();
    return max_threads_;
  }

 private:
  // A text an earlier launch left and nothing took yet is raised now (a
  // read of pinned memory: no call into the driver, so a launch inside a
  // graph capture stays capturable).
  void before_launch() const {
    if (fault_text_pending()) raise_pending_fault({});
  }

  static Module compile_source(const std::string& source, bool debug, bool line_info,
                               bool fast_math, int max_registers) {
    CompileOptions options;
    options.no_extern_c = true;  // the generated source declares its linkage itself
    options.debug = debug;
    options.line_info = line_info;
    options.fast_math = fast_math;
    // A register limit means nothing to the host compiler of the CPU backend.
    if (max_registers > 0 && Device::current().backend_kind() == BackendKind::cuda)
      options.extra_flags.push_back("--maxrregcount=" + std::to_string(max_registers));
    return compile(source, options, Device::current());
  }

  Module module_;
  Kernel kernel_;
  std::string name_;
  bool fault_connected_ = false;  // a GPU: ck_fault_text points at pinned memory
  bool cooperative_ = false;      // launched with LaunchConfig::cooperative (it syncs the grid)
  std::vector<JitParam> params_;
  ConvertMode mode_;
  mutable int max_threads_ = -1;
};

// kernel[grid, block, stream, shared]: the configured launch. A call looks
// the argument types up (ids of the interned types of device arrays and
// Python numbers) in the dispatcher's table and launches in C++; anything
// else (first call, host arrays, other objects, errors) goes to the Python
// dispatcher's launch, which compiles, converts, and raises the messages.
// Called through the vectorcall protocol (no argument tuple), and the last
// call's argument types and kernel are kept, so a loop launching the same
// kernel on the same kinds of arguments skips the table lookup.
PyObject* jit_launcher_vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf,
                                  PyObject* kwnames) noexcept;

class JitLauncher {
 public:
  JitLauncher(nb::object fallback, nb::dict table, nb::handle device_array_type,
              nb::dict fast_type_ids, const std::tuple<unsigned, unsigned, unsigned>& grid,
              const std::tuple<unsigned, unsigned, unsigned>& block, std::uint32_t shared,
              std::uintptr_t stream)
      : fallback_(std::move(fallback)),
        table_(std::move(table)),
        device_array_type_(nb::borrow(device_array_type)),
        fast_type_ids_(std::move(fast_type_ids)) {
    config_.grid = to_dim3(grid);
    config_.block = to_dim3(block);
    config_.shared_bytes = shared;
    config_.stream = StreamRef{reinterpret_cast<void*>(stream)};
    threads_ = static_cast<unsigned long long>(config_.block.x) * config_.block.y * config_.block.z;
  }

  // First, so that it sits at one offset from every (inline) instance's start.
  vectorcallfunc vectorcall = &jit_launcher_vectorcall;

  nb::object call(PyObject* const* args, std::size_t n) const {
    if (!fallback_.is_valid()) {  // cleared by the garbage collector (a dead cycle)
      PyErr_SetString(PyExc_ReferenceError, "the kernel's launcher was released");
      throw nb::python_error();
    }
    if (n <= max_jit_params && launch_fast(args, n)) return nb::none();
    nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(n)));
    for (std::size_t i = 0; i < n; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(i), args[i]);
    }
    return fallback_(tuple);
  }

 private:
  // What identifies an argument's type here: a device array's interned
  // `_type`, else the Python type (numbers).
  const void* type_of(PyObject* a, bool& ok) const {
    if (Py_TYPE(a) != reinterpret_cast<PyTypeObject*>(device_array_type_.ptr())) return Py_TYPE(a);
    PyObject* type = device_ndarray_type_key(a);  // interned: the type table keeps it alive
    ok = type != nullptr;
    return type;
  }

  bool launch_fast(PyObject* const* items, std::size_t n) const {
    std::array<const void*, max_jit_params> signature;  // the first n are set (no clearing)
    bool ok = true;
    bool same = n == last_count_ && last_kernel_ != nullptr;
    for (std::size_t i = 0; i < n && ok; ++i) {
      signature[i] = type_of(items[i], ok);
      same = same && signature[i] == last_signature_[i];
    }
    if (!ok) return false;
    if (!same && !look_up(items, n, signature)) return false;
    last_kernel_->launch_objects(config_, items, n);
    return true;
  }

  // The kernel for these argument types from the dispatcher's table (keys:
  // the ids of the interned types), kept as the last call's.
  bool look_up(PyObject* const* items, std::size_t n,
               const std::array<const void*, max_jit_params>& signature) const {
    nb::object key = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(n)));
    for (std::size_t i = 0; i < n; ++i) {
      PyObject* id = nullptr;
      if (Py_TYPE(items[i]) == reinterpret_cast<PyTypeObject*>(device_array_type_.ptr())) {
        id = PyLong_FromVoidPtr(const_cast<void*>(signature[i]));
        if (id == nullptr) {
          PyErr_Clear();
          return false;
        }
      } else {
        PyObject* known =
            PyDict_GetItem(fast_type_ids_.ptr(), reinterpret_cast<PyObject*>(Py_TYPE(items[i])));
        if (known == nullptr) return false;
        Py_INCREF(known);
        id = known;
      }
      PyTuple_SET_ITEM(key.ptr(), static_cast<Py_ssize_t>(i), id);
    }
    PyObject* kernel = PyDict_GetItem(table_.ptr(), key.ptr());
    if (kernel == nullptr) return false;
    JitKernel* k = nullptr;
    if (!nb::try_cast<JitKernel*>(nb::handle(kernel), k) || k == nullptr) return false;
    const int limit = k->max_threads_per_block_cached();
    if (limit > 0 && threads_ > static_cast<unsigned long long>(limit)) return false;
    // The table only gains entries, so a kept kernel stays the right one.
    last_kernel_object_ = nb::borrow(kernel);
    last_kernel_ = k;
    last_count_ = n;
    std::copy(signature.begin(), signature.begin() + static_cast<std::ptrdiff_t>(n),
              last_signature_.begin());
    return true;
  }

 public:
  // The garbage collector's view: the launcher holds its dispatcher (through
  // the fallback) and the dispatcher caches its launchers, a cycle that is
  // collected once neither is referenced from outside.
  int traverse(visitproc visit, void* arg) const {
    Py_VISIT(fallback_.ptr());
    Py_VISIT(table_.ptr());
    Py_VISIT(device_array_type_.ptr());
    Py_VISIT(fast_type_ids_.ptr());
    Py_VISIT(last_kernel_object_.ptr());
    return 0;
  }
  void clear() {
    last_kernel_ = nullptr;
    last_count_ = 0;
    last_kernel_object_.reset();
    fallback_.reset();
    table_.reset();
    fast_type_ids_.reset();
  }

 private:
  nb::object fallback_;
  nb::dict table_;
  nb::object device_array_type_;
  nb::dict fast_type_ids_;
  LaunchConfig config_;
  unsigned long long threads_ = 0;
  mutable std::array<const void*, max_jit_params> last_signature_{};
  mutable std::size_t last_count_ = 0;
  mutable nb::object last_kernel_object_;
  mutable JitKernel* last_kernel_ = nullptr;
};

PyObject* jit_launcher_vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf,
                                  PyObject* kwnames) noexcept {
  try {
    if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0) {
      PyErr_SetString(PyExc_TypeError,
                      "a kernel launch takes its arguments by position, not by keyword");
      return nullptr;
    }
    const auto& launcher = *nb::inst_ptr<JitLauncher>(self);
    return launcher.call(args, static_cast<std::size_t>(PyVectorcall_NARGS(nargsf)))
        .release()
        .ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    raise_current_exception();  // cudakit's errors as their Python classes
    return nullptr;
  }
}

int jit_launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<JitLauncher>(self)->traverse(visit, arg);
}

int jit_launcher_clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<JitLauncher>(self)->clear();
  return 0;
}

PyType_Slot jit_launcher_slots[] = {
    {Py_tp_traverse, reinterpret_cast<void*>(&jit_launcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&jit_launcher_clear)},
    {0, nullptr}};

// A JitLauncher for Python, with the vectorcall slot of its type turned on
// (once the offset of `vectorcall` inside an instance is known).
nb::object make_jit_launcher(JitLauncher launcher) {
  nb::object instance = nb::cast(std::move(launcher));
  enable_vectorcall(instance, &nb::inst_ptr<JitLauncher>(instance)->vectorcall, "JitLauncher");
  return instance;
}

}  // namespace

void bind_jit(nb::module_& m) {
  nb::class_<JitParam>(m, "JitParam", "The type a @cuda.jit kernel declared for one parameter.")
      .def_static(
          "scalar", [](const std::string& dtype) { return JitParam::scalar(jit_dtype(dtype)); },
          nb::arg("dtype"))
      .def_static(
          "tuple",
          [](const std::vector<std::string>& members) {
            std::vector<DType> dtypes;
            for (const std::string& member : members) dtypes.push_back(jit_dtype(member));
            return JitParam::tuple(std::move(dtypes));
          },
          nb::arg("members"))
      .def_static(
          "array",
          [](const std::string& dtype, int ndim, std::size_t itemsize) {
            return JitParam::array(jit_dtype(dtype), ndim, itemsize);
          },
          nb::arg("dtype"), nb::arg("ndim"), nb::arg("itemsize"))
      .def_static("pointer", &JitParam::pointer)
      .def_prop_ro("size", [](const JitParam& p) { return p.size; })
      .def("__repr__",
           [](const JitParam& p) { return std::string("<JitParam ") + p.type_name + ">"; });

  nb::class_<JitKernel>(m, "JitKernel")
      .def(nb::init<const std::string&, const std::string&, std::vector<JitParam>, bool, bool, bool,
                    int, bool>(),
           nb::arg("source"), nb::arg("name"), nb::arg("params"), nb::arg("debug") = false,
           nb::arg("line_info") = false, nb::arg("fast_math") = false, nb::arg("max_registers") = 0,
           nb::arg("cooperative") = false)
      .def_static(
          "from_module",
          [](Module module, const std::string& name, std::vector<JitParam> params,
             bool cooperative) {
            return new JitKernel(std::move(module), name, std::move(params), cooperative);
          },
          nb::arg("module"), nb::arg("name"), nb::arg("params"), nb::arg("cooperative") = false,
          nb::rv_policy::take_ownership)
      .def("max_cooperative_grid_blocks", &JitKernel::max_cooperative_grid_blocks,
           nb::arg("block_size"), nb::arg("shared_bytes") = 0)
      .def_prop_ro("cooperative", &JitKernel::cooperative)
      .def("check_fault", &JitKernel::check_fault)
      .def("launch", &JitKernel::launch, nb::arg("grid"), nb::arg("block"), nb::arg("shared"),
           nb::arg("stream"), nb::arg("args"))
      .def_prop_ro("ptx", &JitKernel::ptx)
      .def_prop_ro("log", &JitKernel::log)
      .def_prop_ro("arch", &JitKernel::arch)
      .def_prop_ro("param_count", &JitKernel::param_count)
      .def_prop_ro("max_threads_per_block", &JitKernel::max_threads_per_block_cached)
      .def_prop_ro("attributes", &JitKernel::attributes)
      .def("set_shared_memory_carveout", &JitKernel::set_shared_memory_carveout,
           nb::arg("percent"));

  nb::class_<JitLauncher>(m, "JitLauncher",
                          "kernel[griddim, blockdim, stream, sharedmem]: call it to launch.",
                          nb::type_slots(jit_launcher_slots))
      .def("__call__", [](const JitLauncher& launcher, nb::args args) {
        return launcher.call(&PyTuple_GET_ITEM(args.ptr(), 0), args.size());
      });
  m.def(
      "make_jit_launcher",
      [](nb::object fallback, nb::dict table, nb::handle device_array_type, nb::dict fast_type_ids,
         const std::tuple<unsigned, unsigned, unsigned>& grid,
         const std::tuple<unsigned, unsigned, unsigned>& block, std::uint32_t shared,
         std::uintptr_t stream) {
        return make_jit_launcher(JitLauncher(std::move(fallback), std::move(table),
                                             device_array_type, std::move(fast_type_ids), grid,
                                             block, shared, stream));
      },
      "The launcher of kernel[grid, block, stream, shared] (called through the vectorcall "
      "protocol).");

  nb::class_<JitArray>(m, "JitArray")
      .def_static("empty", &JitArray::empty, nb::arg("shape"), nb::arg("dtype"),
                  nb::arg("fortran") = false)
      .def_static("from_host", &JitArray::from_host, nb::arg("address"), nb::arg("shape"),
                  nb::arg("dtype"))
      .def_static(
          "from_pointer",
          [](std::uint64_t address, const std::vector<std::int64_t>& shape,
             const std::vector<std::int64_t>& strides_bytes, const std::string& dtype,
             nb::handle owner, bool readonly) {
            const auto d = parse_dtype(dtype);
            if (!d) throw ArgumentError("device array", "unsupported dtype '" + dtype + "'");
            return JitArray(from_pointer(address, Shape(shape.begin(), shape.end()), strides_bytes,
                                         *d, Device::current(), keep_alive(owner), readonly));
          },
          nb::arg("address"), nb::arg("shape"), nb::arg("strides"), nb::arg("dtype"),
          nb::arg("owner"), nb::arg("readonly") = false,
          "A view of device memory another library owns (strides in bytes; `owner` is kept "
          "alive while the view exists).")
      .def("copy_to_host", &JitArray::copy_to_host)
      .def("copy_from_host", &JitArray::copy_from_host)
      .def("copy", &JitArray::copy)
      .def("reshape", &JitArray::reshape)
      .def("transpose", &JitArray::transpose)
      .def("slice", &JitArray::slice)
      .def("take", &JitArray::take)
      .def("fill_zero", &JitArray::fill_zero)
      .def("assign", &JitArray::assign, nb::arg("source"))
      .def_prop_ro("address", &JitArray::address)
      .def_prop_ro("shape", &JitArray::shape)
      .def_prop_ro("strides", &JitArray::strides)
      .def_prop_ro("dtype", &JitArray::dtype)
      .def_prop_ro("c_contiguous", &JitArray::c_contiguous)
      .def_prop_ro("f_contiguous", &JitArray::f_contiguous);

  // NVRTC only, no device: checks that a generated source compiles for a GPU
  // (used by the tests on machines without one). Returns the PTX.
  m.def(
      "jit_compile_for_gpu",
      [](const std::string& source, const std::string& arch) {
        CompileOptions options;
        options.no_extern_c = true;
        options.arch = arch;
        options.ptx_only = true;
        options.use_cache = false;
        return compile_only(source, options, BackendKind::cuda).ptx;
      },
      nb::arg("source"), nb::arg("arch") = std::string("compute_") + (offline_gpu_arch + 3));
  // The arch compiles use without a GPU to take it from (core's arch policy).
  m.attr("offline_gpu_arch") = offline_gpu_arch;
  m.def("jit_synchronize", [] {
    Device::current().synchronize();
    raise_pending_fault({});
  });
  // The text a kernel's failed check left (a GPU), raised as its KernelFault.
  m.def("jit_check_fault", [] { raise_pending_fault({}); });
  m.def("jit_backend", [] {
    return Device::current().backend_kind() == BackendKind::cpu ? std::string("cpu")
                                                                : std::string("cuda");
  });
  m.def("jit_device_name", [] { return Device::current().name(); });
  m.def("jit_device_count", [] { return Device::count(); });
  m.def("_set_device_ndarray_type", [](nb::handle type) { set_device_ndarray_type(type.ptr()); });
  // cuda.select_device / cuda.gpus[i]: device `ordinal` of the default backend
  // made current on this thread (ArgumentError naming how many there are).
  m.def("jit_select_device", [](int ordinal) { Device::get(ordinal).make_current(); });
  m.def("jit_current_device", [] { return Device::current().ordinal(); });
  // (name, compute capability major, minor, PCI bus id) of device `ordinal`.
  m.def("jit_device_info", [](int ordinal) {
    const Device device = Device::get(ordinal);
    const auto [major, minor] = device.compute_capability();
    return std::make_tuple(device.name(), major, minor, device.pci_bus_id());
  });
  // Where translated kernels are cached on disk (cuda.jit(cache=True)): next
  // to the compile cache, and off when it is (CUDAKIT_CACHE=0).
  // The array kernels' prelude (complex numbers and their math, 16-bit float
  // conversions): translated kernels using complex or float16 values share it.
  m.def("jit_array_prelude", [] { return detail::codegen_prelude(); });
  m.def("jit_cache_directory", [] {
    const CompileCache& cache = CompileCache::global();
    return std::make_tuple(cache.enabled(), cache.directory().string());
  });
}

}  // namespace cudakit::python
