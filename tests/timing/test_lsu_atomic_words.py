"""The LSU front end groups a global atomic's lanes by address for all of an instruction's rows at once:
the words and lane counts are np.unique's of each row."""
import numpy as np
import pytest

from gpusim.timing.lsu import _words_per_row


@pytest.mark.parametrize("seed", range(4))
def test_words_and_counts_per_row_are_those_of_np_unique(seed):
    rng = np.random.default_rng(seed)
    addr = rng.integers(0, [[4], [64], [1 << 40], [8]], size=(4, 32)).repeat(50, axis=0) * 8
    addr[rng.random(addr.shape) < 0.3] = -1                   # inactive lanes
    addr[::7] = -1                                            # rows with no lane at all
    words, counts, first = _words_per_row(addr)
    assert first[0] == 0 and first[-1] == len(words) == len(counts)
    for j, row in enumerate(addr):
        w, c = np.unique(row[row >= 0], return_counts=True)
        assert words[first[j]:first[j + 1]].tolist() == w.tolist()
        assert counts[first[j]:first[j + 1]].tolist() == c.tolist()
