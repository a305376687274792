// Communicators for Python: get_unique_id() and Communicator over the
// core's include/cudakit/communicator.hpp, taking GPUArrays (counts from
// their sizes; dtypes and devices checked) or device addresses (ints, or
// anything the launch path takes as a pointer) with element counts and numpy
// dtypes, op names and streams. cudakit.distributed builds its array-level
// API on these.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "array_object.hpp"
#include "bindings.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/error.hpp"
#include "driver_types.hpp"
#include "jit_array.hpp"

namespace cudakit::python {
namespace {

ReduceOp reduce_op(nb::handle op) {
  const char* doing = "a collective's op";
  if (nb::isinstance<nb::str>(op)) {
    const std::string name = nb::cast<std::string>(op);
    for (ReduceOp o : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg})
      if (name == to_string(o)) return o;
    throw ArgumentError(doing, "op '" + name + "' is not 'sum', 'prod', 'max', 'min' or 'avg'");
  }
  throw ArgumentError(doing, "op must be 'sum', 'prod', 'max', 'min' or 'avg', not " +
                                 nb::cast<std::string>(nb::str(op.type())));
}

std::chrono::milliseconds timeout_from(nb::handle seconds) {
  if (seconds.is_none()) return {};
  const double s = nb::cast<double>(seconds);
  if (!(s > 0) || !std::isfinite(s))
    throw ArgumentError("a communicator's timeout", "timeout must be a positive number of seconds",
                        "pass e.g. 60.0, or None for CUDAKIT_COMM_TIMEOUT (else 60 s)");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(s * 1000.0)));
}

// None (the default backend), 'cuda' or 'cpu'.
BackendKind backend_from(nb::handle backend, const char* use) {
  if (backend.is_none()) return default_backend_kind();
  if (nb::isinstance<nb::str>(backend))
    if (auto kind = parse_backend_kind(nb::cast<std::string>(backend))) return *kind;
  throw ArgumentError(use, "backend must be 'cuda', 'cpu' or None (the default backend)");
}

Device device_from(nb::handle device, const char* use) {
  if (device.is_none()) return Device::current();
  if (nb::isinstance<Device>(device)) return nb::cast<Device>(device);
  return Device::get(int_argument<int>(device, use, "device"));
}

// None (the device's default stream), a cudakit Stream, an int handle, or
// anything with __cuda_stream__ / cuda_stream, on the communicator's device.
Stream stream_of(const Communicator& c, nb::handle stream) {
  return Stream::wrap(c.device(), native_stream(stream));
}

std::uint64_t address(nb::handle buffer, const char* use) {
  return device_target(buffer, use).address;
}

std::size_t count_of(nb::handle count, const char* use) {
  return int_argument<std::size_t>(count, use, "count");
}

// Whether a collective's buffers are arrays (GPUArrays or the JitArrays of
// cudakit.cuda's device arrays; count and dtype None: the
// core takes the counts from the sizes and checks dtypes and devices) rather
// than raw addresses with a count and a dtype. `second` may be null (send,
// recv: one buffer).
bool given_arrays(nb::handle count, nb::handle dtype, nb::handle first, nb::handle second,
                  const char* use) {
  if (count.is_none() != dtype.is_none())
    throw ArgumentError(use, "count and dtype must be given together",
                        "pass both with raw device addresses, or neither with GPUArrays");
  if (!count.is_none()) return false;
  auto is_array = [](nb::handle h) { return is_gpuarray(h) || nb::isinstance<JitArray>(h); };
  if (!is_array(first) || (second.is_valid() && !is_array(second)))
    throw ArgumentError(use, "without count and dtype the buffers must be cudakit GPUArrays",
                        "pass count and dtype with raw device addresses "
                        "(cudakit.distributed takes any device array)");
  return true;
}

// A GPUArray's value, or the array a cudakit.cuda device array holds.
Array array_of(nb::handle buffer) {
  if (nb::isinstance<JitArray>(buffer)) return nb::cast<const JitArray&>(buffer).array();
  return as_gpuarray(buffer).value();
}

std::vector<Communicator> local_ranks(nb::handle devices, nb::handle timeout) {
  std::vector<Device> list;
  for (nb::handle d : nb::iter(devices)) list.push_back(device_from(d, "Communicator.local"));
  const auto t = timeout_from(timeout);
  nb::gil_scoped_release unlocked;
  return Communicator::local(list, t);
}

}  // namespace

void bind_communicator(nb::module_& m) {
  m.def(
      "get_unique_id",
      [](nb::handle backend) {
        const UniqueId id = get_unique_id(backend_from(backend, "get_unique_id"));
        return nb::bytes(reinterpret_cast<const char*>(id.bytes().data()), UniqueId::size);
      },
      nb::arg("backend").none() = nb::none(),
      "A new communicator id: 128 bytes to give every rank (NCCL's ncclGetUniqueId; on the CPU "
      "backend this process then hosts the ranks' hub and must outlive them).");

  nb::class_<Communicator>(m, "Communicator",
                           "One rank of a group of ranks, each on one device (NCCL's ncclComm).")
      .def_static(
          "create",
          [](int nranks, nb::bytes id, int rank, nb::handle device, nb::handle timeout) {
            const auto* data = static_cast<const std::uint8_t*>(id.data());
            const UniqueId unique = UniqueId::from_bytes({data, id.size()});
            const Device d = device_from(device, "Communicator.create");
            const auto t = timeout_from(timeout);
            nb::gil_scoped_release unlocked;
            return Communicator::create(nranks, unique, rank, d, t);
          },
          nb::arg("nranks"), nb::arg("unique_id"), nb::arg("rank"),
          nb::arg("device").none() = nb::none(), nb::arg("timeout").none() = nb::none(),
          "Joins rank `rank` of `nranks` on `device` (a Device or ordinal; None: the current "
          "device); returns once all ranks have joined. timeout: seconds (None: "
          "CUDAKIT_COMM_TIMEOUT, else 60).")
      .def_static("local", &local_ranks, nb::arg("devices"), nb::arg("timeout").none() = nb::none(),
                  "One rank per device of this process, rank i on devices[i] (Devices or "
                  "ordinals). On a GPU, call the ranks' collectives between group_start() and "
                  "group_end().")
      .def_prop_ro("rank", &Communicator::rank)
      .def_prop_ro("size", &Communicator::size)
      .def_prop_ro("device", &Communicator::device)
      .def_prop_ro(
          "timeout",
          [](const Communicator& c) { return static_cast<double>(c.timeout().count()) / 1000.0; })
      .def(
          "all_reduce",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, nb::handle op, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "all_reduce"))
              return c.all_reduce(array_of(send), array_of(recv), reduce_op(op),
                                  stream_of(c, stream));
            c.all_reduce(address(send, "all_reduce"), address(recv, "all_reduce"),
                         count_of(count, "all_reduce"), dtype_from_python(dtype), reduce_op(op),
                         stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("op") = "sum",
          nb::arg("stream").none() = nb::none())
      .def(
          "reduce",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, nb::handle op, int root, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "reduce"))
              return c.reduce(array_of(send), array_of(recv), reduce_op(op), root,
                              stream_of(c, stream));
            c.reduce(address(send, "reduce"), address(recv, "reduce"), count_of(count, "reduce"),
                     dtype_from_python(dtype), reduce_op(op), root, stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("op") = "sum", nb::arg("root") = 0,
          nb::arg("stream").none() = nb::none())
      .def(
          "broadcast",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, int root, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "broadcast"))
              return c.broadcast(array_of(send), array_of(recv), root, stream_of(c, stream));
            c.broadcast(address(send, "broadcast"), address(recv, "broadcast"),
                        count_of(count, "broadcast"), dtype_from_python(dtype), root,
                        stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("root") = 0,
          nb::arg("stream").none() = nb::none())
      .def(
          "all_gather",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "all_gather"))
              return c.all_gather(array_of(send), array_of(recv), stream_of(c, stream));
            c.all_gather(address(send, "all_gather"), address(recv, "all_gather"),
                         count_of(count, "all_gather"), dtype_from_python(dtype),
                         stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("send_count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("stream").none() = nb::none())
      .def(
          "reduce_scatter",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, nb::handle op, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "reduce_scatter"))
              return c.reduce_scatter(array_of(send), array_of(recv), reduce_op(op),
                                      stream_of(c, stream));
            c.reduce_scatter(address(send, "reduce_scatter"), address(recv, "reduce_scatter"),
                             count_of(count, "reduce_scatter"), dtype_from_python(dtype),
                             reduce_op(op), stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("recv_count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("op") = "sum",
          nb::arg("stream").none() = nb::none())
      .def(
          "all_to_all",
          [](const Communicator& c, nb::handle send, nb::handle recv, nb::handle count,
             nb::handle dtype, nb::handle stream) {
            if (given_arrays(count, dtype, send, recv, "all_to_all"))
              return c.all_to_all(array_of(send), array_of(recv), stream_of(c, stream));
            c.all_to_all(address(send, "all_to_all"), address(recv, "all_to_all"),
                         count_of(count, "all_to_all"), dtype_from_python(dtype),
                         stream_of(c, stream));
          },
          nb::arg("send"), nb::arg("recv"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("stream").none() = nb::none())
      .def(
          "send",
          [](const Communicator& c, nb::handle buffer, nb::handle count, nb::handle dtype, int peer,
             nb::handle stream) {
            if (given_arrays(count, dtype, buffer, nb::handle(), "send"))
              return c.send(array_of(buffer), peer, stream_of(c, stream));
            c.send(address(buffer, "send"), count_of(count, "send"), dtype_from_python(dtype), peer,
                   stream_of(c, stream));
          },
          nb::arg("buffer"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("peer"),
          nb::arg("stream").none() = nb::none())
      .def(
          "recv",
          [](const Communicator& c, nb::handle buffer, nb::handle count, nb::handle dtype, int peer,
             nb::handle stream) {
            if (given_arrays(count, dtype, buffer, nb::handle(), "recv"))
              return c.recv(array_of(buffer), peer, stream_of(c, stream));
            c.recv(address(buffer, "recv"), count_of(count, "recv"), dtype_from_python(dtype), peer,
                   stream_of(c, stream));
          },
          nb::arg("buffer"), nb::arg("count").none() = nb::none(),
          nb::arg("dtype").none() = nb::none(), nb::arg("peer"),
          nb::arg("stream").none() = nb::none())
      .def_static(
          "group_start",
          [](nb::handle backend) {
            Communicator::group_start(backend_from(backend, "Communicator.group_start"));
          },
          nb::arg("backend").none() = nb::none(),
          "Starts a group (per thread, nestable): operations are issued at the outer "
          "group_end().")
      .def_static(
          "group_end",
          [](nb::handle backend) {
            const BackendKind kind = backend_from(backend, "Communicator.group_end");
            nb::gil_scoped_release unlocked;
            Communicator::group_end(kind);
          },
          nb::arg("backend").none() = nb::none(), "Issues the operations of the group.");
}

}  // namespace cudakit::python
