"""compute-sanitizer on the bug corpus: host programs for each kernel, the device driver, the report parser
and the import of the results into ``tests/golden/h100/sanitizer/``.  See ``programs/bugs/README.md``."""
