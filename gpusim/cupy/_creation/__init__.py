"""Array creation, as ``cupy._creation``: :mod:`.basic` (empty, zeros, ones, full and their ``_like``),
:mod:`.from_data` (array, asarray, asnumpy ...), :mod:`.ranges` (arange, linspace ...).  The values are made
in numpy on the host and written to the new arrays' device memory: not simulated."""
