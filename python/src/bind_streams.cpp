// cudakit.driver's Stream and Event (PyCUDA's API). A Stream either owns a
// new stream or wraps one owned elsewhere (a torch or CuPy stream, a raw
// handle); both live on the device's primary context, so work on them is
// ordered with the other library's work.
#include <nanobind/stl/string.h>

#include "array_object.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/stream.hpp"
#include "driver_types.hpp"

namespace cudakit::python {
namespace {

// CU_EVENT_BLOCKING_SYNC, CU_EVENT_DISABLE_TIMING, CU_EVENT_INTERPROCESS.
constexpr unsigned kBlockingSync = 0x1;
constexpr unsigned kDisableTiming = 0x2;
constexpr unsigned kInterprocess = 0x4;

std::uint64_t handle_of(void* native) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(native));
}

}  // namespace

void bind_streams(nb::module_& m) {
  nb::class_<Stream>(m, "Stream", "A CUDA stream on the current device's primary context.")
      .def(
          "__init__",
          [](Stream* self, nb::handle flags_object) {
            const auto flags = static_cast<unsigned>(unsigned_argument(
                flags_object, "Stream", "flags", 1,
                "unknown stream flags: pass 0 (synchronizes with the default stream) or 1 "
                "(CU_STREAM_NON_BLOCKING)"));
            Device d = Device::current();
            // flags: 0 = CU_STREAM_DEFAULT (synchronizes with the legacy default
            // stream, as in PyCUDA), 1 = CU_STREAM_NON_BLOCKING.
            new (self) Stream(d.create_stream((flags & 1) != 0));
          },
          nb::arg("flags").none() = 0)
      .def_static(
          "wrap",
          [](nb::handle external) {
            if (external.is_none())
              throw ArgumentError("Stream.wrap", "None is not a stream handle",
                                  "pass an int handle, a torch.cuda.Stream or an object with "
                                  "__cuda_stream__");
            return Stream::wrap(Device::current(), native_stream(external));
          },
          nb::arg("stream"),
          "Wraps a stream owned elsewhere: an int handle (CUstream), a torch.cuda.Stream "
          "(torch.cuda.current_stream()), or any object with __cuda_stream__. cudakit never "
          "destroys it.")
      .def("synchronize",
           [](const Stream& s) {
             evaluate_all_pending();  // work the user wrote before this point is queued
             nb::gil_scoped_release unlocked;
             s.synchronize();
           })
      .def("is_done", &Stream::query)
      .def("query", &Stream::query)
      .def(
          "wait_for_event", [](const Stream& s, const Event& e) { s.wait(e); }, nb::arg("event"))
      .def_prop_ro("handle", [](const Stream& s) { return handle_of(s.native()); })
      .def_prop_ro("ptr", [](const Stream& s) { return handle_of(s.native()); })
      .def("__cuda_stream__",
           [](const Stream& s) { return nb::make_tuple(0, handle_of(s.native())); })
      .def("__int__", [](const Stream& s) { return handle_of(s.native()); })
      .def("__repr__", [](const Stream& s) {
        return "<cudakit.driver.Stream " + std::to_string(handle_of(s.native())) + ">";
      });

  nb::class_<Event>(m, "Event", "A CUDA event on the current device.")
      .def(
          "__init__",
          [](Event* self, nb::handle flags_object) {
            const auto flags = int_argument<unsigned>(flags_object, "Event", "flags");
            if (flags & ~(kBlockingSync | kDisableTiming | kInterprocess))
              throw ArgumentError("Event(flags=" + std::to_string(flags) + ")",
                                  "unknown event flags",
                                  "combine event_flags.BLOCKING_SYNC, DISABLE_TIMING and "
                                  "INTERPROCESS");
            if (flags & kInterprocess)
              throw NotSupported("Event(flags=event_flags.INTERPROCESS)",
                                 "events shared between processes are not supported",
                                 "synchronize within the process, or drop the flag");
            if ((flags & kBlockingSync) &&
                PyErr_WarnEx(PyExc_RuntimeWarning,
                             "Event(flags=event_flags.BLOCKING_SYNC): not applied; "
                             "Event.synchronize() waits as the driver's default event does "
                             "(the result is the same, the host thread may spin)",
                             1) != 0)
              throw nb::python_error();  // the warning filter made it an error
            new (self) Event(Device::current(), (flags & kDisableTiming) == 0);
          },
          nb::arg("flags").none() = 0)
      .def(
          "record",
          [](nb::handle self, nb::handle stream) {
            const Event& e = nb::cast<const Event&>(self);
            // Pending array results written before the record belong before it,
            // or the time between two events would miss them.
            evaluate_all_pending();
            void* native = native_stream(stream);
            e.record(native ? Stream::wrap(e.device(), native) : e.device().default_stream());
            return nb::borrow(self);
          },
          nb::arg("stream") = nb::none(), "Records the event on `stream`; returns the event.")
      .def(
          "synchronize",
          [](nb::handle self) {
            const Event& e = nb::cast<const Event&>(self);
            {
              nb::gil_scoped_release unlocked;
              e.synchronize();
            }
            return nb::borrow(self);
          },
          "Waits until the event has happened; returns the event.")
      .def("query", &Event::query)
      .def(
          "time_since",
          [](const Event& self, const Event& start) { return self.elapsed_ms_since(start); },
          nb::arg("event"), "Milliseconds from `event` to this event.")
      .def(
          "time_till",
          [](const Event& self, const Event& stop) { return stop.elapsed_ms_since(self); },
          nb::arg("event"), "Milliseconds from this event to `event`.")
      .def_prop_ro("handle", [](const Event& e) { return handle_of(e.native()); });
}

}  // namespace cudakit::python
