package insncount

import (
	"github.com/cilium/ebpf/asm"
)

// regs is a set of registers R0-R9, bit n for Rn. R10, the read-only
// frame pointer, is never a member.
type regs uint16

const (
	allRegs regs = 1<<10 - 1
	argRegs regs = 1<<asm.R1 | 1<<asm.R2 | 1<<asm.R3 | 1<<asm.R4 | 1<<asm.R5
)

func reg(r asm.Register) regs {
	if r > asm.R9 {
		return 0
	}
	return 1 << r
}

func (s regs) has(r asm.Register) bool { return s&reg(r) != 0 }

// effect is what an instruction does to the registers. Uses may be too
// many and defs too few, never the other way: an instruction not known
// here reads every register and writes none.
type effect struct {
	use regs // read
	def regs // written with a value
	// clobber are left undefined: the argument registers after a call,
	// which the verifier lets no one read.
	clobber regs
}

func effectOf(ins *asm.Instruction) effect {
	op := ins.OpCode
	dst, src := reg(ins.Dst), reg(ins.Src)
	unknown := effect{use: allRegs}
	switch cls := op.Class(); {
	case cls.IsALU():
		e := effect{use: dst, def: dst}
		// The low bits name the operation; higher ones a variant (signed
		// division, sign-extending moves).
		base := op.ALUOp() & 0xf0
		if base == asm.Mov {
			e.use = 0
		}
		if base != asm.Swap && base != asm.Neg && op.Source() == asm.RegSource {
			e.use |= src
		}
		return e
	case cls == asm.LdClass:
		switch op.Mode() {
		case asm.ImmMode:
			if op.IsDWordLoad() {
				return effect{def: dst}
			}
		case asm.AbsMode, asm.IndMode:
			// Legacy packet loads take the context from R6, return in R0
			// and, like a call, leave R1-R5 undefined.
			e := effect{use: reg(asm.R6), def: reg(asm.R0), clobber: argRegs}
			if op.Mode() == asm.IndMode {
				e.use |= src
			}
			return e
		}
		return unknown
	case cls == asm.LdXClass:
		if op.Mode() == asm.MemMode || op.Mode() == asm.MemSXMode {
			return effect{use: src, def: dst}
		}
		return unknown
	case cls == asm.StClass:
		if op.Mode() == asm.MemMode {
			return effect{use: dst}
		}
		return unknown
	case cls == asm.StXClass:
		switch op.Mode() {
		case asm.MemMode:
			return effect{use: dst | src}
		case asm.AtomicMode:
			return atomicEffect(op.AtomicOp(), dst, src)
		}
		return unknown
	case cls.IsJump():
		switch op.JumpOp() {
		case asm.Call:
			return effect{use: argRegs, def: reg(asm.R0), clobber: argRegs}
		case asm.Exit:
			return effect{use: reg(asm.R0)}
		case asm.Ja, asm.JCOND:
			return effect{}
		case asm.InvalidJumpOp:
			return unknown
		}
		e := effect{use: dst}
		if op.Source() == asm.RegSource {
			e.use |= src
		}
		return e
	}
	return unknown
}

func atomicEffect(op asm.AtomicOp, dst, src regs) effect {
	switch op {
	case asm.AddAtomic, asm.AndAtomic, asm.OrAtomic, asm.XorAtomic:
		return effect{use: dst | src}
	case asm.FetchAdd, asm.FetchAnd, asm.FetchOr, asm.FetchXor, asm.Xchg:
		return effect{use: dst | src, def: src}
	case asm.CmpXchg:
		return effect{use: dst | src | reg(asm.R0), def: reg(asm.R0)}
	}
	// Load-acquire and store-release, and what comes next.
	return effect{use: allRegs}
}
