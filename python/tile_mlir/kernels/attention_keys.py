"""Where the attention kernel's producer finds a key block's rows of K and
V: contiguous heads ((heads, S_k, d): one TMA box a half of d), or a
paged cache as vLLM and FlashInfer keep it, (pages, page size, cache
heads, d) with a block table (batch, pages a sequence) of int32 page
indices: sequence b's key i is row i % page_size of page table[b, i /
page_size]. A key block of 128 keys is one box of a page of 128 keys or
more, or 128 / page_size boxes of whole pages, each landing in its rows of
the slot (a page of 8 rows or more: the 128-byte swizzle's whole atoms).

    keys = PagedKeys(pages=4096, page_size=16, cache_heads=8, batch=4, width=64, keys=1024)
    where = keys.locate(BlockTable, row, kv_head)     # the block's pages, read once
    for dst, coords in keys.boxes(slot, hf, where):   # into slot (128 x 64) of half hf
        ...TMA load of dst from K.tensor_map at coords
"""

from dataclasses import dataclass

from .. import script as T

BN = 128  # keys a block (the attention kernel's step)
LOAD_3D = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
LOAD_4D = "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"


@dataclass(frozen=True)
class ContiguousKeys:
    """K and V as (heads, keys, d): head h's key i at row i."""

    heads: int
    keys: int
    opcode = LOAD_3D

    def param(self, d):
        return T.Tensor((self.heads, self.keys, d), "uint16", tma=T.TensorMap((1, BN, 64), "128B"))

    def table_params(self):
        return []

    def locate(self, table, row, head, clamp=False):
        return row, head

    def boxes(self, slot, hf, where):
        row, head = where
        return [(slot.reshape((1, BN, 64)), (64 * hf, row, head))]


@dataclass(frozen=True)
class PagedKeys:
    """K and V as a paged cache (module docstring): `pages` pages of
    `page_size` keys (a power of two from 8) of `cache_heads` heads, a
    `batch` x `width` block table, `keys` keys a sequence (up to width x
    page_size). The kernel's head h of K and V is sequence h / cache_heads'
    head h % cache_heads."""

    pages: int
    page_size: int
    cache_heads: int
    batch: int
    width: int
    keys: int
    opcode = LOAD_4D

    def __post_init__(self):
        size = self.page_size
        if size < 8 or size & (size - 1):
            raise ValueError(f"a page of {size} keys: a power of two from 8 (whole 128-byte swizzle atoms of rows)")
        if not 0 < self.keys <= self.width * size:
            raise ValueError(f"{self.keys} keys a sequence do not fit its {self.width} pages of {size}")

    box_rows = property(lambda self: min(self.page_size, BN))
    per_block = property(lambda self: BN // self.box_rows)  # pages a key block spans

    def param(self, d):
        return T.Tensor((self.pages, self.page_size, self.cache_heads, d), "uint16",
                        tma=T.TensorMap((1, self.box_rows, 1, 64), "128B"))

    def table_params(self):
        return [("BlockTable", T.Tensor((self.batch, self.width), "int32"))]

    def locate(self, table, row, head, clamp=False):
        """The pages of the key block from `row` of kernel head `head`, read
        from the block table, and the block's first row within its page.
        With `clamp` (the kernel's blocks reach past the last key: a tail,
        or split parts past the keys), a page slot past the keys reads the
        last page's instead (those keys are masked)."""
        batch, cache_head = head // self.cache_heads, head % self.cache_heads
        first = row // self.page_size
        slots = -(-self.keys // self.page_size)
        regs = T.alloc_local((self.per_block, 1), "int32")
        pages = []
        for i in range(self.per_block):
            slot = first + i if i else first
            if clamp:
                slot = T.minimum(slot, slots - 1)
            T.cuda.tile.apply(T.ptx["ld.global.b32"], regs[i:i + 1], table[batch:batch + 1, slot:slot + 1])
            pages.append(regs[i:i + 1].as_index(self.pages, "check"))
        offset = row % self.page_size if self.page_size > BN else 0
        return pages, offset, cache_head

    def boxes(self, slot, hf, where):
        pages, offset, cache_head = where
        rows = self.box_rows
        return [(slot[i * rows:(i + 1) * rows].reshape((1, rows, 1, 64)), (64 * hf, cache_head, offset, page))
                for i, page in enumerate(pages)]
