/* host/bpf_compile.c — v1 device rules and class ids as BPF instructions (see
 * bpf_compile.h).
 *
 * The device program. Registers on entry: r1 = struct bpf_cgroup_dev_ctx *.
 *
 *     w2 = ctx->access_type; w3 = w2 & 0xffff; w2 >>= 16     type in w3, access in w2
 *     w4 = ctx->major; w5 = ctx->minor
 *     per exception, in list order (each block falls through to the next):
 *         w6 = w3; w6 ^= TYPE; if w6 != 0 goto next  (left out when TYPE is b and c)
 *         w6 = w4; w6 ^= MAJOR; if w6 != 0 goto next (left out for '*')
 *         w6 = w5; w6 ^= MINOR; if w6 != 0 goto next (left out for '*')
 *       allow-all mode (a denial, partial match; block left out when ACC is 0):
 *         w6 = w2; w6 &= ACC; if w6 == 0 goto next; r0 = 0; exit
 *       deny-all mode (a grant, full match):
 *         w6 = w2; w6 &= ~ACC; if w6 != 0 goto next; r0 = 1; exit
 *     r0 = allow-all ? 1 : 0; exit
 *
 * Why compare a computed w6 and not w4 itself: a compare teaches the verifier the
 * value of what it reads on one path (w4 == MAJOR after the fall-through; a plain
 * copy w6 = w4 is linked to w4 and teaches the same), so the paths meeting at `next`
 * would differ and the verifier would walk the rest once per path: 18,182
 * instructions processed for a 608-instruction program of 100 rules (Linux 6.18).
 * w6 after an ALU operation is a new value, dead at `next`; the states there are
 * equal and pruned, and the walk is linear (2,303 for 100 rules, 23,003 for 1,000).
 *
 * Order does not change the verdict (any matching denial denies; any covering grant
 * allows), so the list order is kept only to make programs comparable. Fourteen
 * instructions per exception at most.
 */
#include "host/bpf_compile.h"

#include <errno.h>
#include <stddef.h>

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = { 0 };

	i.code = code;
	i.dst_reg = dst & 0xf;
	i.src_reg = src & 0xf;
	i.off = off;
	i.imm = imm;
	return i;
}

#define LDX_W(dst, src, off) insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define STX_W(dst, src, off) insn(BPF_STX | BPF_MEM | BPF_W, dst, src, off, 0)
#define MOV32_REG(dst, src) insn(BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV32_IMM(dst, imm) insn(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define MOV64_IMM(dst, imm) insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define AND32_IMM(dst, imm) insn(BPF_ALU | BPF_AND | BPF_K, dst, 0, 0, imm)
#define RSH32_IMM(dst, imm) insn(BPF_ALU | BPF_RSH | BPF_K, dst, 0, 0, imm)
#define JNE32_IMM(dst, imm, off) insn(BPF_JMP32 | BPF_JNE | BPF_K, dst, 0, off, imm)
#define XOR32_IMM(dst, imm) insn(BPF_ALU | BPF_XOR | BPF_K, dst, 0, 0, imm)
#define JEQ32_IMM(dst, imm, off) insn(BPF_JMP32 | BPF_JEQ | BPF_K, dst, 0, off, imm)
#define EXIT() insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

int ucg_bpf_devices_trivial(const struct ucg_devrules *r)
{
	return r->behavior == UCG_DEV_DEFAULT_ALLOW && r->n == 0;
}

/* The block of one exception into blk (14 slots); returns its length, 0 if it can
 * never decide anything. */
static int rule_block(const struct ucg_dev_rule *ex, int allow_all, struct bpf_insn *blk)
{
	const unsigned both = UCG_DEV_BLOCK | UCG_DEV_CHAR;
	unsigned type = ex->type & UCG_DEV_ALL ? both : ex->type & both;
	int n = 0, tests = 0, jne[3], i;
	int t_type = type != both, t_maj = ex->major != UCG_DEV_ANY,
	    t_min = ex->minor != UCG_DEV_ANY;

	if (!type || (allow_all && !(ex->access & UCG_DEV_ACC_ALL)))
		return 0; /* matches no device, or denies no access */
	/* each compare reads a copy in w6, so the verifier's refinement of the copy
	 * dies at the block's end and the states of both paths prune there; the
	 * compares jump to the block's end, their offsets fixed below */
	if (t_type) {
		blk[n++] = MOV32_REG(BPF_REG_6, BPF_REG_3);
		blk[n++] = XOR32_IMM(BPF_REG_6, (int32_t)type);
		jne[tests++] = n;
		blk[n++] = JNE32_IMM(BPF_REG_6, 0, 0);
	}
	if (t_maj) {
		blk[n++] = MOV32_REG(BPF_REG_6, BPF_REG_4);
		blk[n++] = XOR32_IMM(BPF_REG_6, (int32_t)ex->major);
		jne[tests++] = n;
		blk[n++] = JNE32_IMM(BPF_REG_6, 0, 0);
	}
	if (t_min) {
		blk[n++] = MOV32_REG(BPF_REG_6, BPF_REG_5);
		blk[n++] = XOR32_IMM(BPF_REG_6, (int32_t)ex->minor);
		jne[tests++] = n;
		blk[n++] = JNE32_IMM(BPF_REG_6, 0, 0);
	}
	blk[n++] = MOV32_REG(BPF_REG_6, BPF_REG_2);
	if (allow_all) {
		blk[n++] = AND32_IMM(BPF_REG_6, (int32_t)(ex->access & UCG_DEV_ACC_ALL));
		blk[n++] = JEQ32_IMM(BPF_REG_6, 0, 2);
		blk[n++] = MOV64_IMM(BPF_REG_0, 0);
	} else {
		blk[n++] = AND32_IMM(BPF_REG_6, (int32_t)(~ex->access & UCG_DEV_ACC_ALL));
		blk[n++] = JNE32_IMM(BPF_REG_6, 0, 2);
		blk[n++] = MOV64_IMM(BPF_REG_0, 1);
	}
	blk[n++] = EXIT();
	for (i = 0; i < tests; i++)
		blk[jne[i]].off = (int16_t)(n - jne[i] - 1);
	return n;
}

int ucg_bpf_devices_compile(const struct ucg_devrules *r, struct bpf_insn *out, size_t cap)
{
	const int allow_all = r->behavior == UCG_DEV_DEFAULT_ALLOW;
	const struct bpf_insn head[] = {
		LDX_W(BPF_REG_2, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, access_type)),
		MOV32_REG(BPF_REG_3, BPF_REG_2),
		AND32_IMM(BPF_REG_3, 0xffff),
		RSH32_IMM(BPF_REG_2, 16),
		LDX_W(BPF_REG_4, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, major)),
		LDX_W(BPF_REG_5, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, minor)),
	};
	struct bpf_insn blk[14];
	size_t n = 0, i;
	int k, len;

	if (cap < sizeof(head) / sizeof(head[0]) + 2)
		return -E2BIG;
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		out[n++] = head[i];
	for (i = 0; i < r->n; i++) {
		len = rule_block(&r->ex[i], allow_all, blk);
		if (n + (size_t)len + 2 > cap)
			return -E2BIG;
		for (k = 0; k < len; k++)
			out[n++] = blk[k];
	}
	out[n++] = MOV64_IMM(BPF_REG_0, allow_all ? 1 : 0);
	out[n++] = EXIT();
	return (int)n;
}

int ucg_bpf_classid_compile(uint32_t classid, struct bpf_insn *out, size_t cap)
{
	if (cap < 4)
		return -E2BIG;
	out[0] = MOV32_IMM(BPF_REG_2, (int32_t)classid);
	out[1] = STX_W(BPF_REG_1, BPF_REG_2, offsetof(struct bpf_sock, priority));
	out[2] = MOV64_IMM(BPF_REG_0, 1);
	out[3] = EXIT();
	return 4;
}
