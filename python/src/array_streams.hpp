// stream= on GPUArray functions and methods. As in the core, an array
// operation runs on ONE stream, its output's; these helpers put that output
// (or, for reductions, which run on their first operand's stream, that
// operand) on the stream the caller named, after the work already queued on
// the arrays' own streams.
#pragma once

#include <optional>
#include <vector>

#include "array_object.hpp"

namespace cudakit::python {

// A view of `array` (same memory) whose work runs on `stream`: `stream` first
// waits for the work queued so far on the array's own stream (an event, no
// host synchronisation), and pooled memory is marked as used on `stream`, so
// the pool does not hand it out again before that work is done.
Array on_stream(const Array& array, const Stream& stream);

// The value of a GPUArray as an operand of work on `stream`: a pending result
// is evaluated on `stream` (one kernel), a materialised one viewed there.
Array value_on_stream(GPUArrayObject& object, const Stream& stream);

// An elementwise result: pending when no stream is given (it fuses with what
// follows); with a stream, evaluated at once on it; with `out`, written into
// out (on `stream` when given).
nb::object elementwise_result(Expr expr, std::vector<const void*> reads, std::size_t nodes,
                              nb::handle out, const std::optional<Stream>& stream);

}  // namespace cudakit::python
