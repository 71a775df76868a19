"""bfloat16 and float16 inputs against the float64 reference of the same (rounded) inputs.

Documented tolerance (docs/fallback.md): |out - ref| <= eps * (1 + |ref|), eps the type's machine
epsilon (bfloat16 2^-7, float16 2^-10): one unit in the last place of an O(1) output. Both
fallback paths accumulate in float32 (as flash-attn's kernels do), so only the output rounding and
SDPA's 16-bit probabilities remain. Measured worst cases: docs/fallback.md."""

import pytest
import torch

from conftest import HAS_SDPA, assert_close, fa, lists, make, slopes
from reference import reference_dense

EPS = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10}
OPTIONS = [dict(), dict(causal=True), dict(causal=True, window=(3, 0)), dict(window=(2, 1)),
           dict(softcap=2.0), dict(alibi="heads", causal=True), dict(alibi="batch-heads")]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(sorted(o)) or "plain")
@pytest.mark.parametrize("seqlens", [(9, 7), (4, 12), (8, 8)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_low_precision(path, dtype, options, seqlens, seed):
    options = dict(options)
    alibi = options.pop("alibi", None)
    s = None if alibi is None else slopes((8,) if alibi == "heads" else (2, 8), seed)
    q, k, v = make(2, seqlens[0], seqlens[1], 8, 2, 32, dtype=dtype, seed=seed)
    out = fa.attention(q, k, v, alibi_slopes=s, **options)
    assert out.dtype == dtype
    ref = reference_dense(lists(q), lists(k), lists(v),
                          alibi_slopes=None if s is None else lists(s), **options)
    assert_close(out, ref, EPS[dtype], EPS[dtype])


def test_alibi_in_16_bit_takes_the_float32_math_path():
    q, k, v = make(1, 4, 4, 2, 2, 8, dtype=torch.bfloat16)
    choice = fa.backend(q, k, v, alibi_slopes=slopes((2,)))
    assert choice.name == "math"
    assert "ALiBi in bfloat16" in choice.reason if HAS_SDPA else "torch < 2.0" in choice.reason
