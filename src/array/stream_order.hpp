// Orders an array operation after the work queued on its operands' streams.
// As in CuPy and PyTorch, an operation runs on ONE stream (its output's);
// operands that live on other streams may still have work queued there that
// writes them, so the launch stream first waits for that work (an event
// recorded on the operand's stream, waited on by the launch stream: no host
// synchronisation). The operands' memory is also marked as used on the
// launch stream, so that the pool does not hand it to another stream before
// this work is done.
#pragma once

#include <concepts>
#include <span>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::detail {

// Call before queuing the operation on `launch_stream`, with every array it
// reads or writes (the output too). When all of them are on the launch
// stream and were allocated for it, this costs two pointer comparisons per
// operand: no allocation, no lock, no driver call. Otherwise one event record and one stream wait
// per distinct other stream, with events from a small per-stream cache, and a pool record_stream
// for memory allocated for another stream. Null entries are skipped; `out`, when given, counts as
// one more operand.
void order_after_operands(const Stream& launch_stream, std::span<const Array* const> operands,
                          const Array* out = nullptr);

// Arrays only: an Expr converts to an Array by evaluating it.
template <class... Arrays>
requires(sizeof...(Arrays) > 0 && (std::same_as<Arrays, Array> &&
                                   ...)) void order_after_operands(const Stream& launch_stream,
                                                                   const Arrays&... operands) {
  const Array* list[] = {&operands...};
  order_after_operands(launch_stream, std::span<const Array* const>(list));
}

// Every array leaf of `expr`, and `out` when given.
void order_after_operands(const Stream& launch_stream, const Expr& expr,
                          const Array* out = nullptr);

// The usual case: the operation writes `out` on out's stream. `out` counts as
// an operand; no Stream is made unless some operand is on another stream.
void order_after_operands(const Array& out, std::span<const Array* const> inputs);
void order_after_operands(const Array& out, const Expr& expr);

}  // namespace cudakit::detail
