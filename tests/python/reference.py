"""An independent reference for flash-attn's attention, written from its documentation.

Plain Python floats and loops, one query row at a time, nothing shared with flashfit_attention:
the point is to restate flash-attn's rules a second way, so a mistake in one shows as a mismatch.

The rules, from flash_attn_func's docstring and csrc/flash_attn/flash_api.cpp (v2.8.3):
- query i attends to key j when j lies in [i + sk - sq - left, i + sk - sq + right];
  left or right == -1 means unbounded on that side;
- before that, a side >= seqlen_k (max_seqlen_k for varlen) becomes -1, then causal sets right = 0;
- query head h uses key/value head h // (nheads / nheads_k);
- score = scale * <q_i, k_j> (scale = 1/sqrt(headdim) by default), then softcap * tanh(score /
  softcap) when softcap > 0, then - slope_h * |i + sk - sq - j| when ALiBi slopes are given;
- a row with no key gives 0.
"""

import math


def _allowed_keys(i, seqlen_q, seqlen_k, left, right):
    center = i + seqlen_k - seqlen_q
    keys = []
    for j in range(seqlen_k):
        if right != -1 and j > center + right:
            continue
        if left != -1 and j < center - left:
            continue
        keys.append(j)
    return keys


def _row(qrow, keys, vrows, scale, softcap, slope, center):
    """One query row: softmax over the given keys of the capped, biased scores."""
    scores = []
    for j, krow in keys:
        s = scale * sum(a * b for a, b in zip(qrow, krow))
        if softcap > 0:
            s = softcap * math.tanh(s / softcap)
        if slope is not None:
            s = s - slope * abs(center - j)
        scores.append(s)
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    out = [0.0] * len(vrows[0][1])
    for w, (_, vrow) in zip(weights, vrows):
        for d, x in enumerate(vrow):
            out[d] += w / total * x
    return out


def reference_dense(q, k, v, causal=False, window=(-1, -1), softcap=0.0, softmax_scale=None,
                    alibi_slopes=None, clamp_seqlen_k=None, v_dim=None):
    """q: nested lists [batch][seqlen_q][nheads][headdim] (floats); k, v likewise with
    seqlen_k and nheads_k. alibi_slopes: [nheads] or [batch][nheads]. v_dim: headdim_v, needed
    when seqlen_k is 0. Returns nested lists
    [batch][seqlen_q][nheads][headdim_v]."""
    batch, seqlen_q = len(q), len(q[0]) if q else 0
    seqlen_k = len(k[0]) if k else 0
    nheads = len(q[0][0]) if seqlen_q else 0
    head_dim = len(q[0][0][0]) if seqlen_q else 1
    nheads_k = len(k[0][0]) if seqlen_k else 1
    if v_dim is None:
        v_dim = len(v[0][0][0])
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(head_dim)
    left, right = window
    clamp = seqlen_k if clamp_seqlen_k is None else clamp_seqlen_k
    if left >= clamp:
        left = -1
    if right >= clamp:
        right = -1
    if causal:
        right = 0
    group = nheads // nheads_k if nheads_k else 1
    out = []
    for b in range(batch):
        rows = []
        for i in range(seqlen_q):
            heads = []
            keys = _allowed_keys(i, seqlen_q, seqlen_k, left, right)
            for h in range(nheads):
                kh = h // group
                slope = None
                if alibi_slopes is not None:
                    slope = alibi_slopes[b][h] if isinstance(alibi_slopes[0], list) \
                        else alibi_slopes[h]
                if not keys:
                    heads.append([0.0] * v_dim)
                    continue
                pairs = [(j, k[b][j][kh]) for j in keys]
                vrows = [(j, v[b][j][kh]) for j in keys]
                heads.append(_row(q[b][i][h], pairs, vrows, scale, softcap, slope,
                                  i + seqlen_k - seqlen_q))
            rows.append(heads)
        out.append(rows)
    return out


def reference_varlen(q, k, v, cu_q, cu_k, max_seqlen_k, causal=False, window=(-1, -1),
                     softcap=0.0, softmax_scale=None, alibi_slopes=None, v_dim=None):
    """q: [total_q][nheads][headdim]; sequence b is q[cu_q[b]:cu_q[b+1]]; masks per sequence,
    window sides clamped by max_seqlen_k (flash_api.cpp's mha_varlen_fwd)."""
    out = []
    for b in range(len(cu_q) - 1):
        qb = q[cu_q[b]:cu_q[b + 1]]
        kb = k[cu_k[b]:cu_k[b + 1]]
        vb = v[cu_k[b]:cu_k[b + 1]]
        if not qb:
            continue
        if not kb:  # no key for any row of this sequence
            out.extend([[[0.0] * v_dim for _ in row] for row in qb])
            continue
        slopes = alibi_slopes
        if slopes is not None and isinstance(slopes[0], list):
            slopes = slopes[b]
        out.extend(reference_dense([qb], [kb], [vb], causal, window, softcap, softmax_scale,
                                   slopes, clamp_seqlen_k=max_seqlen_k, v_dim=v_dim)[0])
    return out
