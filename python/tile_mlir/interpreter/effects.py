"""Declared memory effects (as Triton's ConSan declares each op's,
MemEffectsOpInfo): an executor states what an instruction reads and
writes of a tensor or shared buffer as Effect records, and hands them to
the machine's one entry point (`Interpreter.declare`), which gives them,
in order, to the race engine (races.apply). No executor touches the
engine's state or calls its checks itself, so what an instruction does to
memory is written in one place, and how it is checked in another.

An effect is a read, a write, or an update (an atomic's read-modify-write:
read, then written, each byte by one thread). Its bytes are either listed
(`at`, per byte its thread in `lanes`) or, for an element access, given as
each thread's first byte and the element's size (`nbytes`): the engine
then makes per-byte arrays only where a per-byte check needs them."""

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import memory_model as MM

READ, WRITE, UPDATE = "read", "write", "update"


@dataclass(frozen=True)
class Effect:
    kind: str  # READ, WRITE or UPDATE
    buffer: Any  # memory.Buffer
    at: np.ndarray  # the bytes; with nbytes, each element's first byte
    lanes: np.ndarray  # the thread of each byte (element)
    strength: int = MM.WEAK  # memory_model's scope of a strong access, or WEAK
    span: Any = None  # an atomic's (first byte * 16 + bytes), per byte or one for all
    nbytes: int = 0  # > 0: elements of nbytes bytes at `at`
    repeats: Optional[bool] = None  # an element write's: whether an element repeats, where known

    @property
    def reads(self) -> bool:
        return self.kind in (READ, UPDATE)

    @property
    def writes(self) -> bool:
        return self.kind in (WRITE, UPDATE)


def read(buffer, at, lanes, strength=MM.WEAK, span=None) -> Effect:
    """A read of the bytes `at` by `lanes` (per byte)."""
    return Effect(READ, buffer, at, lanes, strength, span)


def write(buffer, at, lanes, strength=MM.WEAK, span=None) -> Effect:
    """A write of the bytes `at` by `lanes` (per byte)."""
    return Effect(WRITE, buffer, at, lanes, strength, span)


def update(buffer, at, lanes, strength, span=None) -> Effect:
    """A read-modify-write of the bytes `at` by `lanes` (an atomic, or an
    mbarrier's arrival)."""
    return Effect(UPDATE, buffer, at, lanes, strength, span)


def element_read(buffer, address, nbytes, lanes, strength=MM.WEAK) -> Effect:
    """A read of `nbytes` from each of `address` by the thread of `lanes`."""
    return Effect(READ, buffer, address, lanes, strength, nbytes=nbytes)


def element_write(buffer, address, nbytes, lanes, strength=MM.WEAK, repeats=None) -> Effect:
    """A write of `nbytes` at each of `address` (multiples of `nbytes`) by
    the thread of `lanes`; `repeats`: whether an address repeats, where
    the caller knows."""
    return Effect(WRITE, buffer, address, lanes, strength, nbytes=nbytes, repeats=repeats)
