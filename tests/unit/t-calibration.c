/*
 * t-calibration: a seeded simulation of the gate, checking what
 * docs/compare.md states each test guarantees, through the whole of
 * compare_run and gate_evaluate.
 *
 * Baselines: the per-question R@5, nDCG@10, RR and Success@5 (a 0/1
 * measure) of BM25 on sets/squad-demo@v1 (tests/data/compare, 143
 * answerable questions); for 30 and 500 questions, questions drawn from
 * those 143 with replacement (seeded). A candidate is drawn from a
 * baseline by one of three kinds of change, each with a true mean loss of
 * exactly d (the margin, in the cells below):
 *  - one-way: each question loses its whole value with chance a, a m = d;
 *  - two-way: besides, each question rises to 1 with chance g (one draw
 *    decides: lost, risen or neither), g (1 - m) = 0.025, and
 *    a m = d + 0.025 (m: the baseline mean);
 *  - skewed: many small losses and rare large gains: each question loses a
 *    quarter of its value (a 0/1 value all of it) with chance s, and each
 *    question rises to 1 with chance g, g (1 - m) = 0.03, s times
 *    the mean small loss = d + 0.03. The sign-flip test the gate used
 *    before failed 0.11-0.13 of the time here at 30 questions.
 * Each cell (measure x n x kind x test) checks: test: drop at its margin
 * fails at most alpha + 3 SE of the time; test: non-inferiority at its
 * margin passes at most alpha + 3 SE. The rates are printed (the table of
 * docs/compare.md). Then: a gate of four drop rules all at their margins
 * (family-wise error), test: none at its margin (about half), the 0/1
 * decline measures, and power's predictions against measured detection.
 *
 * EVALSET_CALIBRATION_SHARD=K (above 1) runs one check in K (every K-th
 * cell of those at 30 and 143 questions, then every K-th of the other
 * checks), each with its full number of draws and its bound: the build
 * tested under an emulator (about 20 times slower, floating point most of
 * all, tools/cross/i686-emulated.ini) and the sanitizers run the same seeded
 * arithmetic on a part of the table instead of for a quarter of an hour.
 * They check memory and 32-bit arithmetic there, not the statistics, so
 * the cells at 500 questions, half of the table's cost, are left to the
 * plain build.
 */
#include "test-lib.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/gatepower.h"
#include "compare/gatetest.h"
#include "compare/stats.h"
#include "score/results.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL_DRAWS 500
#define ALPHA 0.05

static const char *const measures[] = { "R@5", "nDCG@10", "RR", "Success@5" };
#define NR_MEASURES 4

static struct results demo;

/* one check in 'shard' runs (EVALSET_CALIBRATION_SHARD; 1: all of them) */
static unsigned long shard = 1, unit_nr;

static bool unit_runs(void)
{
	return unit_nr++ % shard == 0;
}

enum kind { ONE_WAY, TWO_WAY, SKEWED };
static const char *const kind_names[] = { "one-way", "two-way", "skewed" };

/* Make 'out' a baseline of 'n' answerable questions holding the four
 * measures: the demo's questions, or (n != 143) drawn from them. */
static void make_baseline(struct results *out, size_t n, uint64_t seed)
{
	size_t *ans = xmalloc(demo.nr * sizeof(*ans)), na = 0;
	struct rng g;

	for (size_t i = 0; i < demo.nr; i++)
		if (demo.q[i].answerable)
			ans[na++] = i;
	rng_seed(&g, seed);
	results_init(out);
	out->set_name = xstrdup("calibration");
	out->set_digest = xstrdup("sha256:calibration");
	out->nr_measures = NR_MEASURES;
	out->measures = xcalloc(NR_MEASURES, sizeof(char *));
	out->aggregate = xcalloc(NR_MEASURES, sizeof(double));
	for (size_t j = 0; j < NR_MEASURES; j++)
		out->measures[j] = xstrdup(measures[j]);
	out->q = xcalloc(n, sizeof(*out->q));
	out->nr = n;
	for (size_t i = 0; i < n; i++) {
		const struct question_result *src = &demo.q[ans[n == na ? i : rng_below(&g, na)]];
		struct question_result *q = &out->q[i];

		q->id = xstrfmt("q-%05zu", i + 1);
		q->text = xstrdup("calibration question");
		q->answerable = true;
		q->values = xcalloc(NR_MEASURES, sizeof(double));
		for (size_t j = 0; j < NR_MEASURES; j++)
			q->values[j] = src->values[results_measure(&demo, measures[j])];
	}
	out->nr_answerable = (long)n;
	free(ans);
}

static void copy_values(struct results *dst, const struct results *src)
{
	for (size_t i = 0; i < src->nr; i++)
		memcpy(dst->q[i].values, src->q[i].values, NR_MEASURES * sizeof(double));
}

/*
 * Move 'cand' (a copy of 'base') by kind 'k' on measure 'j' for a true mean
 * loss 'd'; the other measures keep the baseline's values.
 */
static void draw(struct results *cand, const struct results *base, size_t j, enum kind k, double d,
		 struct rng *g)
{
	double m = 0, up = 0, small = 0, a, gain = 0;
	size_t n = base->nr;
	bool binary = !strcmp(measures[j], "Success@5");

	for (size_t i = 0; i < n; i++) {
		double v = base->q[i].values[j];

		m += v;
		up += 1 - v;
		small += binary ? v : 0.25 * v;
	}
	m /= (double)n;
	up /= (double)n;
	small /= (double)n;
	if (k == TWO_WAY)
		gain = up > 0 ? 0.025 / up : 0;
	else if (k == SKEWED)
		gain = up > 0 ? 0.03 / up : 0;
	a = k == ONE_WAY ? d / m : k == TWO_WAY ? (d + gain * up) / m : (d + gain * up) / small;
	copy_values(cand, base);
	/* a loss and a gain are disjoint events of one draw, so that the mean
	 * loss is exactly a times the mean loss of a question minus gain times
	 * the mean room to rise */
	for (size_t i = 0; i < n; i++) {
		double v = base->q[i].values[j], u = rng_uniform(g);

		if (u < a)
			cand->q[i].values[j] = k == SKEWED && !binary ? 0.75 * v : 0;
		else if (u < a + gain)
			cand->q[i].values[j] = 1;
	}
}

/* Compare 'cand' with 'base' by the gate of 'text' ('seed' for the rounding);
 * return the number of failed rules (the first's in '*first'), -1 on error. */
static int run_gate(const struct results *base, const struct results *cand, const char *text,
		    uint64_t seed, struct gatetest_cache *cache, bool *first)
{
	const struct results *pb[] = { base }, *pc[] = { cand };
	struct compare_opts o = COMPARE_OPTS_INIT;
	struct gate g;
	struct gate_outcome *out;
	struct compare c;
	int failed;

	gate_init(&g);
	if (gate_load_buf(&g, text, strlen(text), "calibration.yaml") < 0)
		return -1;
	out = xcalloc(GATE_OUTCOMES(&g), sizeof(*out));
	o.gate = &g;
	o.resamples = 1;
	o.seed = seed;
	o.gate_only = true;
	o.cache = cache;
	compare_init(&c);
	failed = compare_run(&c, pb, 1, pc, 1, &o) < 0 ? -1 : gate_evaluate(&g, &c, out);
	*first = failed >= 0 && !out[0].pass;
	if (failed >= 0)
		gate_outcomes_release(out, GATE_OUTCOMES(&g));
	compare_release(&c);
	gate_release(&g);
	free(out);
	return failed;
}

/* The margin of a non-inferiority cell on n questions: the smallest of
 * 0.02, 0.05 and 0.10 that a candidate changing nothing could pass. */
static double noninf_margin(size_t n)
{
	return gatetest_p_noninf_unchanged(n, 0.02) < ALPHA ? 0.02
	     : gatetest_p_noninf_unchanged(n, 0.05) < ALPHA ? 0.05 : 0.10;
}

/* One cell: 'CELL_DRAWS' candidates drawn by change 'k' of measure 'j' at
 * the margin of the rule; returns the rate of wrong verdicts (fails of a
 * drop rule, passes of a non-inferiority rule), -1 when the gate errs. */
static double cell_rate(const struct results *base, struct results *cand, size_t s, size_t n,
			size_t j, enum kind k, bool ni)
{
	double margin = ni ? noninf_margin(n) : 0.02;
	char *text = xstrfmt("rules:\n  - {measure: %s, max_drop: %g, test: %s}\n", measures[j], margin,
			     ni ? "non-inferiority" : "drop");
	struct gatetest_cache cache = GATETEST_CACHE_INIT;
	struct rng g;
	long wrong = 0;
	int f = 0;

	rng_seed(&g, 1000 * s + 100 * j + 10 * (uint64_t)k + (uint64_t)ni);
	for (int r = 0; r < CELL_DRAWS && f >= 0; r++) {
		bool first;

		draw(cand, base, j, k, margin, &g);
		f = run_gate(base, cand, text, (uint64_t)r + 1, &cache, &first);
		wrong += ni ? !first : first;
	}
	gatetest_cache_release(&cache);
	free(text);
	return f < 0 ? -1 : (double)wrong / CELL_DRAWS;
}

static void check_cells(void)
{
	static const size_t sizes[] = { 30, 143, 500 };
	const double se = sqrt(ALPHA * (1 - ALPHA) / CELL_DRAWS);
	double worst = 0;
	int cells = 0;

	for (size_t s = 0; s < 3; s++) {
		struct results base, cand;

		/* the shard's cells (below) at 30 and 143 questions: 500 costs as
		 * much as the other two together and takes the same code paths */
		if (shard > 1 && sizes[s] > 143)
			break;
		make_baseline(&base, sizes[s], 40 + s);
		make_baseline(&cand, sizes[s], 40 + s);
		for (size_t j = 0; j < NR_MEASURES; j++)
			for (int k = ONE_WAY; k <= SKEWED; k++)
				for (int t = 0; t < 2; t++) {
					bool ni = t == 1;
					double rate;

					if (!unit_runs())
						continue;
					rate = cell_rate(&base, &cand, s, sizes[s], j, (enum kind)k, ni);
					cells++;
					if (rate > worst)
						worst = rate;
					ok(rate >= 0 && rate <= ALPHA + 3 * se,
					   "%s n %zu %s, test %s at its margin %g: %s %.3f of the time (<= alpha + 3 SE)",
					   measures[j], sizes[s], kind_names[k], ni ? "non-inferiority" : "drop",
					   ni ? noninf_margin(sizes[s]) : 0.02, ni ? "passes" : "fails", rate);
				}
		results_release(&base);
		results_release(&cand);
	}
	test_diag("the largest error rate of the %d cells: %.3f (%d draws each)", cells, worst,
		  CELL_DRAWS);
}

/* A gate of four drop rules, every measure at its margin at once (two-way
 * changes on the same questions): the chance that any rule fails. */
static void check_family(void)
{
	const char *text = "rules:\n  - {measure: R@5, max_drop: 0.02}\n  - {measure: nDCG@10, max_drop: 0.02}\n"
			   "  - {measure: RR, max_drop: 0.02}\n  - {measure: Success@5, max_drop: 0.02}\n";
	const double se = sqrt(ALPHA * (1 - ALPHA) / 1000);
	struct results base, cand;
	struct gatetest_cache cache = GATETEST_CACHE_INIT;
	struct rng g;
	long any = 0;

	make_baseline(&base, 143, 7);
	make_baseline(&cand, 143, 7);
	rng_seed(&g, 77);
	for (int r = 0; r < 1000; r++) {
		bool first;

		/* each measure moves by the margin: its own draw, from the baseline */
		for (size_t j = 0; j < NR_MEASURES; j++) {
			struct results tmp;
			double saved[NR_MEASURES];

			make_baseline(&tmp, 143, 7);
			draw(&tmp, &base, j, TWO_WAY, 0.02, &g);
			for (size_t i = 0; i < base.nr; i++) {
				memcpy(saved, cand.q[i].values, sizeof(saved));
				saved[j] = tmp.q[i].values[j];
				memcpy(cand.q[i].values, saved, sizeof(saved));
			}
			results_release(&tmp);
		}
		any += run_gate(&base, &cand, text, (uint64_t)r + 1, &cache, &first) > 0;
	}
	ok((double)any / 1000 <= ALPHA + 3 * se, "four drop rules, every one at its margin: the gate "
	   "fails %.3f of the time (family-wise, <= alpha + 3 SE; 1000 draws)", (double)any / 1000);
	gatetest_cache_release(&cache);
	results_release(&base);
	results_release(&cand);
}

/* test: none at its margin fails about half of the time: no guarantee, as
 * docs/compare.md says. */
static void check_none(void)
{
	struct results base, cand;
	struct gatetest_cache cache = GATETEST_CACHE_INIT;
	struct rng g;
	long fails = 0;

	make_baseline(&base, 143, 9);
	make_baseline(&cand, 143, 9);
	rng_seed(&g, 99);
	for (int r = 0; r < 500; r++) {
		bool first;

		draw(&cand, &base, 0, TWO_WAY, 0.02, &g);
		run_gate(&base, &cand, "rules:\n  - {measure: R@5, max_drop: 0.02, test: none}\n",
			 (uint64_t)r + 1, &cache, &first);
		fails += first;
	}
	ok(fails > 125 && fails < 375, "test none at its margin fails %.3f of the time, about half",
	   (double)fails / 500);
	gatetest_cache_release(&cache);
	results_release(&base);
	results_release(&cand);
}

/*
 * The 0/1 decline measures: a baseline that declines nothing (FalseDecline
 * 0 on the 143 answerable questions) and a candidate that declines each
 * with chance 'rise'; or a baseline declining all 30 unanswerable questions
 * and a candidate that stops declining each with chance 'rise'.
 */
static double rate_01(const char *text, bool unanswerable, double rise, int runs, uint64_t seed)
{
	struct results b01, cand;
	struct gatetest_cache cache = GATETEST_CACHE_INIT;
	struct rng g;
	int fails = 0;

	results_init(&b01);
	results_init(&cand);
	results_load(&b01, "tests/data/compare/demo-bm25-v1.json");
	results_load(&cand, "tests/data/compare/demo-bm25-v1.json");
	for (size_t i = 0; i < b01.nr; i++)
		b01.q[i].declined = unanswerable && !b01.q[i].answerable;
	rng_seed(&g, seed);
	for (int i = 0; i < runs; i++) {
		bool first;

		for (size_t q = 0; q < cand.nr; q++) {
			bool moves = b01.q[q].answerable != unanswerable && rng_uniform(&g) < rise;

			cand.q[q].declined = b01.q[q].declined != moves;
		}
		run_gate(&b01, &cand, text, (uint64_t)i + 1, &cache, &first);
		fails += first;
	}
	gatetest_cache_release(&cache);
	results_release(&b01);
	results_release(&cand);
	return (double)fails / runs;
}

static void check_01(void)
{
	static const char fd[] = "rules:\n  - {measure: FalseDecline, max_rise: 0.02, test: drop}\n";
	static const char dec[] = "rules:\n  - {measure: Decline, max_drop: 0.05, test: drop}\n";
	double r;

	r = rate_01(fd, false, 0.02, 2000, 21);
	ok(r <= ALPHA, "FalseDecline 0 -> rise 0.02 (at the margin), only 0/+1 changes: false failures "
	   "%.4f <= alpha (2000 comparisons)", r);
	r = rate_01(fd, false, 0.08, 500, 23);
	ok(r >= 0.85, "FalseDecline rise 0.08 (4 times the margin): detected %.3f >= 0.85 (500)", r);
	r = rate_01("rules:\n  - {measure: FalseDecline, max_rise: 0.03, test: non-inferiority}\n",
		    false, 0.03, 2000, 26);
	ok(1 - r <= ALPHA, "FalseDecline non-inferiority, true rise 0.03 (at the margin): false passes "
	   "%.4f <= alpha (2000 comparisons)", 1 - r);
	r = rate_01(dec, true, 0.05, 2000, 24);
	ok(r <= ALPHA, "Decline 1 -> drop 0.05 (at the margin) on 30 unanswerable questions: false "
	   "failures %.4f <= alpha (2000 comparisons)", r);
	r = rate_01(dec, true, 0.30, 500, 25);
	ok(r >= 0.85, "Decline drop 0.30: detected %.3f >= 0.85 (500 comparisons)", r);
}

/*
 * power --gate and the closed form against detection measured here, for
 * the default gate's rules (R@5 among three drop rules) at true R@5 drops of
 * 3, 5 and 10 points, whole questions moving two-way (churn 0.05) and
 * one-way (churn 0): gate_power's simulated rate within 3 SE of the
 * measured one, the closed form within 0.05.
 */
static void check_power(void)
{
	static const double drops[] = { 0.03, 0.05, 0.10 };
	static const double churns[] = { 0.05, 0 };
	static const char text[] = "rules:\n  - {measure: R@5, max_drop: 0.02}\n"
				   "  - {measure: nDCG@10, max_drop: 0.02}\n  - {measure: RR, max_drop: 0.02}\n";
	struct results base, scratch, cand;
	struct gate g;

	make_baseline(&base, 143, 11);
	make_baseline(&scratch, 143, 11);
	make_baseline(&cand, 143, 11);
	gate_init(&g);
	gate_load_buf(&g, text, strlen(text), "power.yaml");
	for (size_t c = 0; c < 2; c++) {
		struct gate_power_opts po = { drops, 3, 300, 1000, churns[c], 99, NULL };
		struct gate_power_cell cells[9];

		is_int(gate_power(&g, &base, &scratch, &po, cells), 0, "power --gate's simulation runs");
		for (size_t i = 0; i < 3; i++) {
			struct gatetest_cache cache = GATETEST_CACHE_INIT;
			double tol = 3 * sqrt(2 * 0.25 / 300), measured;
			struct gate_size z;
			struct rng r;
			long fails = 0;

			rng_seed(&r, 500 + 10 * c + i);
			for (int k = 0; k < 300; k++) {
				/* whole questions: every measure of a lost question falls to 0,
				 * of a gained one rises to the baseline's largest value */
				double m = 0, a, gain;

				for (size_t q = 0; q < base.nr; q++)
					m += base.q[q].values[0];
				m /= (double)base.nr;
				gain = churns[c] > 0 ? (churns[c] / 2) / (1 - m) : 0;
				a = (drops[i] + gain * (1 - m)) / m;
				copy_values(&cand, &base);
				for (size_t q = 0; q < base.nr; q++) {
					double u = rng_uniform(&r);

					for (size_t j = 0; j < NR_MEASURES && u < a + gain; j++)
						cand.q[q].values[j] = u < a ? 0 : 1;
				}
				{
					bool first;

					run_gate(&base, &cand, text, (uint64_t)k + 1, &cache, &first);
					fails += first;
				}
			}
			measured = (double)fails / 300;
			gate_rule_size(&g, 0, &base, churns[c], drops[i], 0.8, &z);
			test_diag("R@5 rule among three drop rules, true drop %.0f points, churn %g: fails "
				  "%.3f measured, %.3f by power --gate, %.3f closed form (300 each)",
				  drops[i] * 100, churns[c], measured, cells[i].rate, z.power_now);
			ok(fabs(measured - cells[i].rate) <= tol,
			   "churn %g, %.0f points: power --gate's %.3f within 3 SE of the measured %.3f",
			   churns[c], drops[i] * 100, cells[i].rate, measured);
			ok(fabs(measured - z.power_now) <= 0.05,
			   "churn %g, %.0f points: the closed form %.3f within 0.05 of the measured %.3f",
			   churns[c], drops[i] * 100, z.power_now, measured);
			gatetest_cache_release(&cache);
		}
	}
	gate_release(&g);
	results_release(&base);
	results_release(&scratch);
	results_release(&cand);
}

int main(void)
{
	const char *part = getenv("EVALSET_CALIBRATION_SHARD");

	if (part && *part) {
		char *end;

		shard = strtoul(part, &end, 10);
		if (*end || shard == 0) {
			ok(false, "EVALSET_CALIBRATION_SHARD is a whole number above 0, not '%s'", part);
			return test_done();
		}
		test_diag("one check in %lu (EVALSET_CALIBRATION_SHARD)", shard);
	}
	results_init(&demo);
	if (results_load(&demo, "tests/data/compare/demo-bm25-v1.json") < 0) {
		ok(false, "the demo baseline loads");
		return test_done();
	}
	check_cells();
	if (unit_runs())
		check_family();
	if (unit_runs())
		check_none();
	if (unit_runs())
		check_01();
	if (unit_runs())
		check_power();
	results_release(&demo);
	return test_done();
}
