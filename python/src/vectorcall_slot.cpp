#include "vectorcall_slot.hpp"

#include <stdexcept>
#include <string>

namespace cudakit::python {

void enable_vectorcall(nb::handle instance, const vectorcallfunc* slot, const char* what) {
  auto* type = reinterpret_cast<PyTypeObject*>(Py_TYPE(instance.ptr()));
  const auto offset = static_cast<Py_ssize_t>(reinterpret_cast<const char*>(slot) -
                                              reinterpret_cast<const char*>(instance.ptr()));
  const bool inside =
      offset > 0 && offset + static_cast<Py_ssize_t>(sizeof(vectorcallfunc)) <= type->tp_basicsize;
  if (type->tp_vectorcall_offset == 0 && inside) {
    type->tp_vectorcall_offset = offset;
    type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  } else if (type->tp_vectorcall_offset != 0 && type->tp_vectorcall_offset != offset) {
    throw std::logic_error(std::string("cudakit: a ") + what +
                           " instance has an unexpected layout");
  }
}

}  // namespace cudakit::python
