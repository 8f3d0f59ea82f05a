"""Loads and stores of 16-byte float32 vectors, each plain or with an L2
cache policy of a given eviction priority (createpolicy.fractional made
once, `.L2::cache_hint` on every access): RMSNorm's and softmax's x kept
in L2 (`evict_last`) and their output evicted first."""

from typing import Optional

from .. import script as T


def cache_policy(priority: str):
    """A 64-bit register holding an L2 policy of `priority` for every line
    it is used on."""
    policy = T.alloc_local((1, 1), "uint64")
    T.cuda.tile.apply(T.ptx[f"createpolicy.fractional.L2::{priority}.b64"], policy)
    return policy


class VectorAccess:
    """`vectors` 16-byte float32 vectors a thread: loads of x and stores of
    the output, each with the policy of its priority (None: plain)."""

    def __init__(self, vectors: int, load_priority: Optional[str] = None, store_priority: Optional[str] = None):
        self.vectors = vectors
        self.load_policy = cache_policy(load_priority) if load_priority else None
        self.store_policy = cache_policy(store_priority) if store_priority else None

    def load(self, x, source, **predicate):
        self._apply("ld.global", self.load_policy, x, source, **predicate)

    def store(self, target, x, **predicate):
        self._apply("st.global", self.store_policy, target, x, **predicate)

    def _apply(self, access, policy, dst, src, **predicate):
        """One access of `dst`'s vectors (`predicate`: pred= and
        preserve_dst= of tile.apply)."""
        if policy is None:
            T.cuda.tile.apply(T.ptx[f"{access}.v4.f32"], dst, src, **predicate)
        else:
            T.cuda.tile.apply(T.ptx[f"{access}.L2::cache_hint.v4.f32"], dst, src,
                              policy.broadcast((dst.shape[0], 1)), **predicate)
