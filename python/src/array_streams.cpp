#include "array_streams.hpp"

#include "cudakit/array_expr.hpp"
#include "cudakit/event.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit::python {

Array on_stream(const Array& array, const Stream& stream) {
  if (!array.valid()) return array;
  const Stream own = array.stream();
  if (own.native() == stream.native() && own.device() == stream.device()) return array;
  stream.wait(own.record());
  const auto& storage = array.storage();
  if (storage->pooled) MemoryPool::of(storage->device).record_stream(storage->address, stream);
  Array view = array;
  view.set_stream(stream);
  return view;
}

Array value_on_stream(GPUArrayObject& object, const Stream& stream) {
  if (!object.is_pending()) return on_stream(object.value(), stream);
  Array out = numpy_errors([&] { return empty(object.shape(), object.dtype(), stream); });
  const Expr expr = object.expr();
  numpy_errors([&] { eval(expr, out); });
  return out;
}

nb::object elementwise_result(Expr expr, std::vector<const void*> reads, std::size_t nodes,
                              nb::handle out, const std::optional<Stream>& stream) {
  if (out.is_valid() && !out.is_none()) {
    Array target = as_gpuarray(out).value();
    if (stream) target = on_stream(target, *stream);
    prepare_write(target);
    numpy_errors([&] { eval(expr, target); });
    return nb::borrow(out);
  }
  if (!stream) return wrap_pending(std::move(expr), std::move(reads), nodes);
  Array target = numpy_errors([&] { return empty(expr.shape(), expr.dtype(), *stream); });
  numpy_errors([&] { eval(expr, target); });
  return wrap(std::move(target));
}

}  // namespace cudakit::python
