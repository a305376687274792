// CUDA IPC for cudakit.driver: mem_get_ipc_handle (the 64 bytes naming an
// allocation, as PyCUDA's bytearray) and the core's IpcMemoryHandle (the
// memory opened in another process). The PyCUDA-facing class,
// IPCMemoryHandle, is in cudakit/_ipc_memory.py.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <span>
#include <string>

#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/ipc_memory_handle.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// bytes, bytearray, memoryview, a uint8 numpy array: any contiguous buffer
// of exactly 64 bytes (PyCUDA takes only a bytearray).
IpcHandleBytes handle_argument(nb::handle obj, const char* use) {
  if (PyUnicode_Check(obj.ptr()) || !PyObject_CheckBuffer(obj.ptr()))
    throw ArgumentError(use,
                        "the handle must be bytes-like (bytes, bytearray), got " +
                            std::string(nb::type_name(obj.type()).c_str()),
                        "pass the bytearray mem_get_ipc_handle returned (sent to this process "
                        "by pickle, a Pipe or a Queue)");
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw ArgumentError(use, "the handle's buffer is not contiguous",
                        "pass the bytearray mem_get_ipc_handle returned");
  }
  const std::span<const unsigned char> bytes(static_cast<const unsigned char*>(view.buf),
                                             static_cast<std::size_t>(view.len));
  try {
    IpcHandleBytes handle = ipc_handle_from_bytes(bytes);
    PyBuffer_Release(&view);
    return handle;
  } catch (...) {
    PyBuffer_Release(&view);
    throw;
  }
}

}  // namespace

void bind_ipc_memory(nb::module_& m) {
  m.def(
      "_mem_get_ipc_handle",
      [](nb::handle memory) {
        const char* use = "mem_get_ipc_handle";
        const DeviceTarget target = device_target(memory, use);
        const IpcHandleBytes handle = export_ipc_handle(Device::current(), target.address);
        return nb::steal(PyByteArray_FromStringAndSize(reinterpret_cast<const char*>(handle.data()),
                                                       static_cast<Py_ssize_t>(handle.size())));
      },
      nb::arg("devptr"));

  nb::class_<IpcMemoryHandle>(m, "_IpcMemoryHandle",
                              "Device memory of another process, opened from its IPC handle.")
      .def(
          "__init__",
          [](IpcMemoryHandle* self, nb::handle handle, nb::handle flags) {
            const char* use = "IPCMemoryHandle";
            const IpcHandleBytes bytes = handle_argument(handle, use);
            new (self) IpcMemoryHandle(bytes, int_argument<unsigned>(flags, use, "flags"));
          },
          nb::arg("handle"), nb::arg("flags"))
      .def_prop_ro("address", &IpcMemoryHandle::address)
      .def_prop_ro("is_open", &IpcMemoryHandle::is_open)
      .def_prop_ro("device_ordinal", [](const IpcMemoryHandle& h) { return h.device().ordinal(); })
      .def("close", &IpcMemoryHandle::close);
}

}  // namespace cudakit::python
