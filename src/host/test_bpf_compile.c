/* Tests of host/bpf_compile.c (pure): the device program, run by a small interpreter
 * of the instructions the compiler emits, decides every access exactly as the
 * engine's ucg_devrules_may_access() over many random rule lists (both modes, '*',
 * majors and minors above 2^31, partial and full access); sizes stay within
 * UCG_BPF_DEV_INSNS; the class-id program stores the id in bpf_sock.priority. */
#include "host/bpf_compile.h"

#include "base/prng.h"
#include "harness.h"

#include <errno.h>

/* Runs prog on ctx (n bytes); returns r0, or -1 on an instruction the compiler must
 * not emit, a jump out of the program or a backward jump. */
static int64_t run(const struct bpf_insn *prog, int len, void *ctx, size_t ctxlen)
{
	uint64_t r[11] = { 0 };
	int pc = 0;

	r[1] = 0; /* offsets into ctx */
	while (pc >= 0 && pc < len) {
		const struct bpf_insn *i = &prog[pc];
		uint32_t d32 = (uint32_t)r[i->dst_reg], imm = (uint32_t)i->imm;
		int jump = 0;

		switch (i->code) {
		case BPF_LDX | BPF_MEM | BPF_W:
			if (i->src_reg != 1 || i->off < 0 || (size_t)i->off + 4 > ctxlen)
				return -1;
			r[i->dst_reg] = *(uint32_t *)((char *)ctx + i->off);
			break;
		case BPF_STX | BPF_MEM | BPF_W:
			if (i->dst_reg != 1 || i->off < 0 || (size_t)i->off + 4 > ctxlen)
				return -1;
			*(uint32_t *)((char *)ctx + i->off) = (uint32_t)r[i->src_reg];
			break;
		case BPF_ALU | BPF_MOV | BPF_X: r[i->dst_reg] = (uint32_t)r[i->src_reg]; break;
		case BPF_ALU | BPF_MOV | BPF_K: r[i->dst_reg] = imm; break;
		case BPF_ALU64 | BPF_MOV | BPF_K: r[i->dst_reg] = (uint64_t)(int64_t)i->imm; break;
		case BPF_ALU | BPF_AND | BPF_K: r[i->dst_reg] = d32 & imm; break;
		case BPF_ALU | BPF_XOR | BPF_K: r[i->dst_reg] = d32 ^ imm; break;
		case BPF_ALU | BPF_RSH | BPF_K: r[i->dst_reg] = d32 >> (imm & 31); break;
		case BPF_JMP32 | BPF_JNE | BPF_K: jump = d32 != imm; break;
		case BPF_JMP32 | BPF_JEQ | BPF_K: jump = d32 == imm; break;
		case BPF_JMP | BPF_EXIT: return (int64_t)r[0];
		default: return -1;
		}
		if (jump && i->off < 0)
			return -1;
		pc += 1 + (jump ? i->off : 0);
	}
	return -1;
}

static int64_t ask(const struct bpf_insn *prog, int len, unsigned type, uint32_t major,
		   uint32_t minor, unsigned acc)
{
	struct bpf_cgroup_dev_ctx ctx = { (acc << 16) | type, major, minor };

	return run(prog, len, &ctx, sizeof(ctx));
}

static void rules_from(struct ucg_devrules *r, const char *const *writes)
{
	ucg_devrules_init(r);
	for (; *writes; writes++) {
		struct ucg_dev_rule rule;
		const char *w = *writes;

		T_EQ_INT(ucg_dev_rule_parse(w + 2, strlen(w + 2), &rule), 0);
		T_EQ_INT(ucg_devrules_write(r, NULL,
					    w[0] == 'A' ? UCG_DEV_FILE_ALLOW : UCG_DEV_FILE_DENY,
					    &rule, NULL),
			 0);
	}
}

static void test_examples(void)
{
	/* "A x": write x to devices.allow, "D x": to devices.deny */
	const char *deny_null[] = { "D c 1:3 rwm", NULL };
	const char *only_null_rw[] = { "D a", "A c 1:3 rw", "A c 136:* rwm", NULL };
	const char *big[] = { "D a", "A b 4294967294:2147483648 r", NULL };
	struct bpf_insn prog[64];
	struct ucg_devrules r;
	int n;

	ucg_devrules_init(&r);
	T_CHECK(ucg_bpf_devices_trivial(&r));
	n = ucg_bpf_devices_compile(&r, prog, 64);
	T_EQ_INT(n, 8);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 3, UCG_DEV_ACC_READ), 1);
	ucg_devrules_fini(&r);

	rules_from(&r, deny_null);
	T_CHECK(!ucg_bpf_devices_trivial(&r));
	n = ucg_bpf_devices_compile(&r, prog, 64);
	T_CHECK(n > 0 && (size_t)n <= UCG_BPF_DEV_INSNS(r.n));
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 3, UCG_DEV_ACC_READ), 0);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 5, UCG_DEV_ACC_READ | UCG_DEV_ACC_WRITE), 1);
	T_EQ_INT(ask(prog, n, UCG_DEV_BLOCK, 1, 3, UCG_DEV_ACC_READ), 1);
	ucg_devrules_fini(&r);

	rules_from(&r, only_null_rw);
	n = ucg_bpf_devices_compile(&r, prog, 64);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 3, UCG_DEV_ACC_READ | UCG_DEV_ACC_WRITE), 1);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 3, UCG_DEV_ACC_MKNOD), 0);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 136, 7, UCG_DEV_ACC_MKNOD), 1);
	T_EQ_INT(ask(prog, n, UCG_DEV_CHAR, 1, 5, UCG_DEV_ACC_READ), 0);
	/* too small a buffer: refused, not truncated */
	T_EQ_INT(ucg_bpf_devices_compile(&r, prog, 10), -E2BIG);
	ucg_devrules_fini(&r);

	rules_from(&r, big);
	n = ucg_bpf_devices_compile(&r, prog, 64);
	T_EQ_INT(ask(prog, n, UCG_DEV_BLOCK, 4294967294u, 2147483648u, UCG_DEV_ACC_READ), 1);
	T_EQ_INT(ask(prog, n, UCG_DEV_BLOCK, 4294967294u, 2147483647u, UCG_DEV_ACC_READ), 0);
	T_EQ_INT(ask(prog, n, UCG_DEV_BLOCK, 2147483646u, 2147483648u, UCG_DEV_ACC_READ), 0);
	ucg_devrules_fini(&r);
}

static uint32_t pick_num(struct ucg_prng *p)
{
	static const uint32_t nums[] = { 0, 1, 3, 5, 8, 136, 2147483648u, 4294967294u };

	return nums[ucg_prng_below(p, sizeof(nums) / sizeof(nums[0]))];
}

/* Random lists, both modes; every (type, major, minor, access) over the same numbers
 * and '*' queries decided as the engine decides. */
static void test_random_equivalence(void)
{
	struct ucg_prng p;
	struct bpf_insn prog[UCG_BPF_DEV_INSNS(40)];
	unsigned long asked = 0, denied = 0;
	int round;

	ucg_prng_seed(&p, 13);
	for (round = 0; round < 400; round++) {
		struct ucg_devrules r;
		int w, n;

		ucg_devrules_init(&r);
		for (w = 0; w < 1 + (int)ucg_prng_below(&p, 30); w++) {
			struct ucg_dev_rule rule;
			enum ucg_dev_file f =
				ucg_prng_below(&p, 2) ? UCG_DEV_FILE_ALLOW : UCG_DEV_FILE_DENY;

			if (ucg_prng_below(&p, 12) == 0) {
				rule = (struct ucg_dev_rule){ UCG_DEV_ALL, UCG_DEV_ANY, UCG_DEV_ANY,
							      UCG_DEV_ACC_ALL };
			} else {
				rule.type = ucg_prng_below(&p, 2) ? UCG_DEV_BLOCK : UCG_DEV_CHAR;
				rule.major = ucg_prng_below(&p, 4) ? pick_num(&p) : UCG_DEV_ANY;
				rule.minor = ucg_prng_below(&p, 4) ? pick_num(&p) : UCG_DEV_ANY;
				rule.access = (unsigned)ucg_prng_below(&p, 8);
			}
			T_EQ_INT(ucg_devrules_write(&r, NULL, f, &rule, NULL), 0);
		}
		n = ucg_bpf_devices_compile(&r, prog, sizeof(prog) / sizeof(prog[0]));
		T_CHECK(n > 0 && (size_t)n <= UCG_BPF_DEV_INSNS(r.n));
		for (unsigned type = UCG_DEV_BLOCK; type <= UCG_DEV_CHAR; type++)
			for (int q = 0; q < 60; q++) {
				uint32_t maj = pick_num(&p), min = pick_num(&p);
				unsigned acc = 1 + (unsigned)ucg_prng_below(&p, 7);
				int want = ucg_devrules_may_access(&r, type, maj, min, acc);
				int64_t got = ask(prog, n, type, maj, min, acc);

				if (got != want) {
					T_FAIL_AT("round %d: %u %u:%u acc %u: bpf %lld, engine %d",
						  round, type, maj, min, acc, (long long)got, want);
					ucg_devrules_fini(&r);
					return;
				}
				asked++;
				denied += !want;
			}
		ucg_devrules_fini(&r);
	}
	/* both verdicts were exercised many times */
	T_CHECK(denied > asked / 10 && denied < asked - asked / 10);
}

static void test_classid(void)
{
	struct bpf_insn prog[8];
	struct bpf_sock sk = { 0 };
	int n = ucg_bpf_classid_compile(0x00100001, prog, 8);

	T_EQ_INT(n, 4);
	T_EQ_INT(run(prog, n, &sk, sizeof(sk)), 1);
	T_EQ_INT(sk.priority, 0x00100001);
	n = ucg_bpf_classid_compile(0xffff0002u, prog, 8);
	T_EQ_INT(run(prog, n, &sk, sizeof(sk)), 1);
	T_EQ_INT(sk.priority, 0xffff0002u);
	T_EQ_INT(ucg_bpf_classid_compile(1, prog, 3), -E2BIG);
}

int main(void)
{
	T_RUN(test_examples);
	T_RUN(test_random_equivalence);
	T_RUN(test_classid);
	return t_done();
}
