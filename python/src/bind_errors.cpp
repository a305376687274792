// Exception classes in PyCUDA's hierarchy (Error > LogicError, LaunchError,
// MemoryError, RuntimeError, CompileError) and the translators that turn
// each cudakit C++ error into the matching one. The Python exception's text
// is cudakit's full message (context, failure, code, hint); the parts are
// also attributes: context, message, hint, code, code_name (and log/source
// for CompileError, requested/free_bytes/total_bytes for MemoryError, limit/
// requested/device_value for LaunchConfigError, kernels for KernelFault).
//
// Also here: Ctrl-C while Python waits for the CPU backend (with the GIL
// released, in synchronize(), a copy, a launch with In/Out arguments)
// raises KeyboardInterrupt. The backend calls check_python_signals every
// 50 ms of a wait (cudakit/wait_interrupt.hpp); it runs Python's signal
// handlers, and their exception leaves the wait as a python_error. A Ctrl-C
// that came while Python was not waiting and that nothing caught ends the
// program: then the kernels still running are cancelled at exit (an atexit
// callback, and the waits of other atexit callbacks), so the exit does not
// wait for them forever.
#include <Python.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "cudakit/error.hpp"
#include "cudakit/module.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "cudakit/wait_interrupt.hpp"
#include "errors.hpp"

namespace cudakit::python {
namespace {

struct ErrorClasses {
  PyObject* error = nullptr;
  PyObject* logic = nullptr;
  PyObject* launch = nullptr;
  PyObject* memory = nullptr;
  PyObject* runtime = nullptr;
  PyObject* compile = nullptr;
  PyObject* argument = nullptr;
  PyObject* launch_config = nullptr;
  PyObject* kernel_fault = nullptr;
  PyObject* not_supported = nullptr;
  PyObject* library_not_found = nullptr;
  PyObject* driver_not_found = nullptr;
  PyObject* nvrtc_not_found = nullptr;
  PyObject* cublas_not_found = nullptr;
  PyObject* nccl_not_found = nullptr;
  PyObject* communicator = nullptr;
  PyObject* driver_too_old = nullptr;
  PyObject* no_kernel_image = nullptr;
};
ErrorClasses classes;

// Python runs signal handlers on its main thread only.
unsigned long main_thread_ident = 0;

// The program is ending because of a KeyboardInterrupt nothing caught:
// Python has printed it (sys.last_value) and shut threading down, which it
// does only on its way out, before the atexit callbacks. Needs the GIL.
bool exiting_after_interrupt() {
  PyObject* last = PySys_GetObject("last_value");  // borrowed
  if (!last || !PyErr_GivenExceptionMatches(last, PyExc_KeyboardInterrupt)) return false;
  PyObject* threading = PyImport_GetModule(nb::str("threading").ptr());
  if (!threading) {
    PyErr_Clear();
    return false;
  }
  PyObject* down = PyObject_GetAttrString(threading, "_SHUTTING_DOWN");
  Py_DECREF(threading);
  const int shutting_down = down ? PyObject_IsTrue(down) : 0;
  Py_XDECREF(down);
  PyErr_Clear();
  return shutting_down == 1;
}

void check_python_signals() {
  if (PyThread_get_thread_ident() != main_thread_ident || !Py_IsInitialized()) return;
  std::optional<nb::python_error> interrupt;
  bool exiting = false;
  {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0)
      interrupt.emplace();
    else
      exiting = exiting_after_interrupt();
  }
  if (interrupt) throw nb::python_error(std::move(*interrupt));
  if (exiting) cancel_running_kernels();  // the wait then ends with the launches' failure
}

void cancel_at_exit_after_interrupt() {
  if (!exiting_after_interrupt()) return;
  nb::gil_scoped_release unlocked;
  cancel_running_kernels();
}

PyObject* new_class(nb::module_& m, const char* name, nb::object bases, const char* doc) {
  const std::string qualified = std::string("cudakit.driver.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!cls) throw nb::python_error();
  m.attr(name) = nb::handle(cls);
  return cls;
}

nb::object bases(std::initializer_list<PyObject*> list) {
  nb::list items;
  for (PyObject* b : list) items.append(nb::handle(b));
  return nb::tuple(items);
}

void set(PyObject* exc, const char* name, nb::handle value) {
  PyObject_SetAttrString(exc, name, value.ptr());
}

// Raises `cls` with cudakit's message and its parts as attributes.
template <class Fill>
void raise(PyObject* cls, const Error& e, Fill fill) {
  nb::object message = nb::str(e.what());
  PyObject* exc = PyObject_CallOneArg(cls, message.ptr());
  if (!exc) return;  // the constructor's own error is set
  set(exc, "context", nb::str(e.context().c_str()));
  set(exc, "message", nb::str(e.message().c_str()));
  set(exc, "hint", nb::str(e.hint().c_str()));
  set(exc, "code", nb::int_(e.code()));
  set(exc, "code_name", nb::str(e.code_name().c_str()));
  fill(exc);
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
}

void raise(PyObject* cls, const Error& e) {
  raise(cls, e, [](PyObject*) {});
}

// A kernel compiled from Python with debug=True stops with the text of the
// Python exception it raised ("IndexError: index 5 is out of bounds ...",
// "ZeroDivisionError('division by zero') raised in ...", "AssertionError:
// ..."). Numba raises that exception on the host, so the fault is also an
// instance of it: KernelIndexError derives from KernelFault and IndexError.
// The name of the builtin, or empty when the text starts with none.
std::string python_exception_name(const std::string& message) {
  std::size_t end = 0;
  while (end < message.size() &&
         (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '_'))
    ++end;
  if (end == 0 || end == message.size()) return {};
  const std::string_view rest = std::string_view(message).substr(end);
  if (!(rest.starts_with(": ") || rest.starts_with("(") || rest.starts_with(" raised in ")))
    return {};
  return message.substr(0, end);
}

// The pinned host memory debug kernels on a GPU write their text into
// (ck_fault_text); made at the first connect_fault_text, kept for the
// process's life (freed at exit it would outlive the context).
constexpr std::size_t kFaultTextBytes = 1024;  // CK_FAULT_TEXT_BYTES in program.py
char* fault_text = nullptr;

// KernelFault, or its subclass that is also the Python builtin the kernel
// raised (made once per builtin).
PyObject* kernel_fault_class(const std::string& message) {
  static std::map<std::string, PyObject*> made;  // owned for the process's life
  const std::string name = python_exception_name(message);
  if (name.empty() || !name.ends_with("Error")) return classes.kernel_fault;
  if (auto found = made.find(name); found != made.end()) return found->second;
  PyObject* builtin = PyDict_GetItemString(PyEval_GetBuiltins(), name.c_str());  // borrowed
  PyObject* cls = nullptr;
  if (builtin && PyType_Check(builtin) &&
      PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(builtin),
                       reinterpret_cast<PyTypeObject*>(PyExc_Exception))) {
    const std::string qualified = "cudakit.driver.Kernel" + name;
    const std::string doc = "A kernel compiled with debug=True raised " + name +
                            " (a KernelFault, caught as " + name + " too, as Numba raises it).";
    cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc.c_str(),
                                    bases({classes.kernel_fault, builtin}).ptr(), nullptr);
    if (!cls) PyErr_Clear();  // a builtin whose layout does not combine: KernelFault alone
  }
  if (!cls) cls = classes.kernel_fault;
  made.emplace(name, cls);
  return cls;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const CompileError& e) {
    raise(classes.compile, e, [&](PyObject* exc) {
      set(exc, "log", nb::str(e.log().c_str()));
      set(exc, "source", nb::str(e.source().c_str()));
      // PyCUDA's CompileError carries the compiler's output as `stderr`.
      set(exc, "stderr", nb::str(e.log().c_str()));
      set(exc, "stdout", nb::str(""));
    });
  } catch (const OutOfMemory& e) {
    raise(classes.memory, e, [&](PyObject* exc) {
      set(exc, "requested", nb::int_(e.requested()));
      set(exc, "free_bytes", nb::int_(e.free_bytes()));
      set(exc, "total_bytes", nb::int_(e.total_bytes()));
    });
  } catch (const LaunchConfigError& e) {
    raise(classes.launch_config, e, [&](PyObject* exc) {
      set(exc, "limit", nb::str(e.limit().c_str()));
      set(exc, "requested", nb::int_(e.requested()));
      set(exc, "device_value", nb::int_(e.device_value()));
    });
  } catch (const ArgumentError& e) {
    raise(classes.argument, e);
  } catch (const KernelFault& e) {
    auto fill = [&](PyObject* exc) {
      nb::list names;
      for (const auto& k : e.kernels()) names.append(nb::str(k.c_str()));
      set(exc, "kernels", names);
    };
    // On a GPU the driver says only "illegal instruction": the text the
    // kernel left says what stopped it.
    if (std::string text = take_fault_text();
        !text.empty() && python_exception_name(e.message()).empty()) {
      const KernelFault told(e.context(), text + " (" + e.message() + ")", e.kernels(), e.hint(),
                             e.code(), e.code_name());
      raise(kernel_fault_class(told.message()), told, fill);
    } else {
      raise(kernel_fault_class(e.message()), e, fill);
    }
  } catch (const NotSupported& e) {
    raise(classes.not_supported, e);
  } catch (const DriverNotFound& e) {
    raise(classes.driver_not_found, e);
  } catch (const NvrtcNotFound& e) {
    raise(classes.nvrtc_not_found, e);
  } catch (const CublasNotFound& e) {
    raise(classes.cublas_not_found, e);
  } catch (const NcclNotFound& e) {
    raise(classes.nccl_not_found, e);
  } catch (const CommunicatorError& e) {
    raise(classes.communicator, e, [&](PyObject* exc) {
      nb::list ranks;
      for (int r : e.missing_ranks()) ranks.append(nb::int_(r));
      set(exc, "missing_ranks", ranks);
    });
  } catch (const LibraryNotFound& e) {
    raise(classes.library_not_found, e);
  } catch (const DriverTooOld& e) {
    raise(classes.driver_too_old, e);
  } catch (const NoKernelImage& e) {
    raise(classes.no_kernel_image, e);
  } catch (const CudaError& e) {
    raise(classes.runtime, e);
  } catch (const Error& e) {
    raise(classes.error, e);
  }
}

}  // namespace

std::string take_fault_text() {
  if (fault_text == nullptr || fault_text[0] == '\0') return {};
  std::string text(fault_text, strnlen(fault_text, kFaultTextBytes));
  fault_text[0] = '\0';
  // The count of texts taken, after the text: the kernels' claims of an
  // earlier count are stale (ck_fault_claim in program.py).
  auto* taken = reinterpret_cast<volatile unsigned*>(fault_text + kFaultTextBytes);
  *taken = *taken + 1;
  return text;
}

bool fault_text_pending() noexcept { return fault_text != nullptr && fault_text[0] != '\0'; }


void raise_pending_fault(const std::string& kernel) {
  std::string text = take_fault_text();
  if (text.empty()) return;
  std::vector<std::string> kernels;
  if (!kernel.empty()) kernels.push_back(kernel);
  throw KernelFault(kernel.empty() ? std::string("a kernel launched earlier")
                                   : "running kernel " + kernel,
                    text, std::move(kernels),
                    "a thread of the kernel stopped at a failed check and ended itself; the "
                    "other threads ran on, the context stays usable and the next launch runs "
                    "normally");
}

PyObject* argument_error_class() noexcept { return classes.argument; }

bool connect_fault_text(const Module& module) noexcept {
  try {
    const GlobalVariable pointer = module.get_global("ck_fault_text");
    if (fault_text == nullptr) {
      // Pinned memory is reachable from every device at its host address.
      // The text, then the count of texts taken (an unsigned).
      auto* memory = new PinnedBuffer<char>(kFaultTextBytes + 16);  // kept: see fault_text
      std::memset(memory->data(), 0, kFaultTextBytes + 16);
      fault_text = memory->data();
    }
    const auto address = reinterpret_cast<std::uint64_t>(fault_text);
    pointer.copy_from_host(&address, sizeof address);
    return true;
  } catch (...) {
    // No such variable, or no pinned memory: a failed check traps, and the
    // fault is raised without the kernel's text, as a plain KernelFault.
    return false;
  }
}

void raise_current_exception() noexcept {
  try {
    translate(std::current_exception(), nullptr);
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyErr_SetString(e.type() == nb::exception_type::type_error    ? PyExc_TypeError
                    : e.type() == nb::exception_type::value_error ? PyExc_ValueError
                    : e.type() == nb::exception_type::index_error ? PyExc_IndexError
                                                                  : PyExc_RuntimeError,
                    e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}
PyObject* not_supported_class() noexcept { return classes.not_supported; }

void bind_errors(nb::module_& m) {
  PyObject* exc = PyExc_Exception;
  classes.error = new_class(m, "Error", bases({exc}), "Base of every cudakit error.");
  classes.logic = new_class(m, "LogicError", bases({classes.error}),
                            "A call that cannot work as made (PyCUDA's LogicError).");
  classes.launch = new_class(m, "LaunchError", bases({classes.error}),
                             "A kernel launch or a running kernel failed.");
  classes.memory = new_class(m, "MemoryError", bases({classes.error, PyExc_MemoryError}),
                             "An allocation the device or host could not satisfy.");
  classes.runtime = new_class(m, "RuntimeError", bases({classes.error, PyExc_RuntimeError}),
                              "A CUDA driver error, or a missing library.");
  classes.compile = new_class(m, "CompileError", bases({classes.error}),
                              "The compiler rejected the source; `log` holds its output.");
  // Also a TypeError: PyCUDA raises TypeError for a kernel argument of the
  // wrong type, and code written for it catches that.
  classes.argument =
      new_class(m, "ArgumentError", bases({classes.logic, PyExc_ValueError, PyExc_TypeError}),
                "An argument that does not match what the call or kernel takes.");
  classes.launch_config =
      new_class(m, "LaunchConfigError", bases({classes.logic, PyExc_ValueError}),
                "A grid, block or shared-memory size beyond the device's limits.");
  classes.kernel_fault = new_class(m, "KernelFault", bases({classes.launch}),
                                   "A kernel faulted; `kernels` names those in flight.");
  classes.not_supported =
      new_class(m, "NotSupported", bases({classes.error, PyExc_NotImplementedError}),
                "Something this backend or cudakit does not do.");
  classes.library_not_found = new_class(m, "LibraryNotFound", bases({classes.runtime}),
                                        "A vendor library could not be loaded.");
  classes.driver_not_found = new_class(m, "DriverNotFound", bases({classes.library_not_found}),
                                       "libcuda (the NVIDIA driver) is missing.");
  classes.nvrtc_not_found = new_class(m, "NvrtcNotFound", bases({classes.library_not_found}),
                                      "libnvrtc (the CUDA run-time compiler) is missing.");
  classes.cublas_not_found =
      new_class(m, "CublasNotFound", bases({classes.library_not_found}), "libcublas is missing.");
  classes.nccl_not_found =
      new_class(m, "NcclNotFound", bases({classes.library_not_found}), "libnccl is missing.");
  classes.communicator = new_class(
      m, "CommunicatorError", bases({classes.runtime}),
      "A collective failed: ranks that disagree, a rank that never arrived (`missing_ranks`), "
      "a lost peer, or NCCL's error.");
  classes.driver_too_old = new_class(m, "DriverTooOld", bases({classes.runtime}),
                                     "The driver is older than the toolkit cudakit compiles with.");
  classes.no_kernel_image = new_class(m, "NoKernelImage", bases({classes.runtime}),
                                      "The loaded code has no image for this device's arch.");
  nb::register_exception_translator(translate, nullptr);

  main_thread_ident = nb::cast<unsigned long>(
      nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  set_wait_interrupt_check(&check_python_signals);
  // Registered when cudakit is imported, so it runs after the atexit
  // callbacks registered later (autoinit's), before Python frees objects.
  nb::module_::import_("atexit").attr("register")(
      nb::cpp_function(&cancel_at_exit_after_interrupt));
}

}  // namespace cudakit::python
