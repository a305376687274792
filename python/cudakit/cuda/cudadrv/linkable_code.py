"""`numba.cuda.cudadrv.linkable_code`: the code objects `link=` takes
(defined in cudakit.cuda.linked_code)."""

from ..linked_code import (LTOIR, Archive, CUSource, Cubin, Fatbin, LinkableCode, Object,
                           PTXSource)

__all__ = ["Archive", "CUSource", "Cubin", "Fatbin", "LinkableCode", "LTOIR", "Object",
           "PTXSource"]
