// Linear algebra: matmul broadcasting, mm/bmm/addmm family, dot/vdot, einsum,
// tensordot, against fixtures from scripts/fixtures/linalg.py (PyTorch).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <ember/ember.h>

#include "npy.h"
#include "test_util.h"

using namespace ember;
using ember::testing::at;
using ember::testing::fixture_path;
using ember::testing::load_npy;

namespace linalg_test {

Tensor fixture(const std::string& name) { return load_npy(fixture_path("core/linalg/" + name + ".npy")); }

// Compares in float64 (complex128 for complex results).
void expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                  const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const DType wide = actual.is_complex() || expected.is_complex() ? kComplex128 : kFloat64;
  EXPECT_TRUE(actual.to(wide).allclose(expected.to(wide), rtol, atol))
      << what << "\nactual:\n" << actual << "\nexpected:\n" << expected;
}

// A copy of t with the same values laid out transposed in memory (so its
// strides are not row-major), for non-contiguous operand tests.
Tensor column_major(const Tensor& t) {
  if (t.dim() < 2) return t;
  return t.mT().contiguous().mT();
}

const char* kMatmulCases[] = {"dot",         "mv",          "vm",          "mm",
                              "batched_mat", "mat_batched", "bcast",       "bcast_both",
                              "vec_batched", "batched_vec", "big_batch_vec"};

TEST(Linalg, MatmulBroadcastCasesFloat64) {
  for (const char* name : kMatmulCases) {
    const std::string base = std::string("matmul_") + name;
    Tensor a = fixture(base + "_a"), b = fixture(base + "_b"), expected = fixture(base + "_out");
    expect_close(matmul(a, b), expected, 1e-12, 1e-12, base);
    expect_close(a.matmul(b), expected, 1e-12, 1e-12, base + " (method)");
    // Same values, non-row-major memory: BLAS gets transpose flags instead of copies.
    expect_close(matmul(column_major(a), column_major(b)), expected, 1e-12, 1e-12, base + " (column-major)");
  }
}

TEST(Linalg, MatmulBroadcastCasesOtherDtypes) {
  for (const char* name : kMatmulCases) {
    const std::string base = std::string("matmul_") + name;
    Tensor a = fixture(base + "_a"), b = fixture(base + "_b"), expected = fixture(base + "_out");
    expect_close(matmul(a.to(kFloat32), b.to(kFloat32)), expected, 1e-5, 1e-5, base + " float32");
    expect_close(matmul(a.to(kComplex64), b.to(kComplex64)), expected, 1e-5, 1e-5, base + " complex64");
    expect_close(matmul(a.to(kBFloat16), b.to(kBFloat16)), matmul(a.to(kBFloat16).to(kFloat64), b.to(kBFloat16).to(kFloat64)),
                 2e-2, 2e-2, base + " bfloat16");
    expect_close(matmul(a.to(kFloat16), b.to(kFloat16)), expected, 1e-2, 1e-2, base + " float16");
    Tensor ia = (a * 10).to(kInt32), ib = (b * 10).to(kInt32);
    expect_close(matmul(ia, ib), matmul(ia.to(kFloat64), ib.to(kFloat64)), 0, 0, base + " int32");
    EXPECT_EQ(matmul(ia, ib).dtype(), kInt32);
  }
}

TEST(Linalg, MatmulOutVariants) {
  Tensor a = fixture("matmul_bcast_a"), b = fixture("matmul_bcast_b"), expected = fixture("matmul_bcast_out");
  Tensor out = empty({0}, kFloat64);
  matmul_out(out, a, b);
  expect_close(out, expected, 1e-12, 1e-12, "matmul_out resized");
  // A non-contiguous out of the right shape is written through.
  Tensor big = zeros({2, 3, 5, 3}, kFloat64).transpose(-1, -2);
  matmul_out(big, a, b);
  expect_close(big, expected, 1e-12, 1e-12, "matmul_out strided");
  Tensor wrong = empty({2, 2}, kFloat64);
  EXPECT_THROW(matmul_out(wrong, a, b), Error);
  Tensor wrong_dtype = empty({0}, kFloat32);
  EXPECT_THROW(matmul_out(wrong_dtype, a, b), Error);
  // 1-d x 1-d into an out= tensor.
  Tensor d = empty({}, kFloat64);
  matmul_out(d, fixture("matmul_dot_a"), fixture("matmul_dot_b"));
  expect_close(d, fixture("matmul_dot_out"), 1e-12, 1e-12, "matmul_out dot");
}

TEST(Linalg, MmBmmAndOut) {
  Tensor a = fixture("matmul_mm_a"), b = fixture("matmul_mm_b"), expected = fixture("matmul_mm_out");
  expect_close(mm(a, b), expected, 1e-12, 1e-12, "mm");
  expect_close(a.mm(b), expected, 1e-12, 1e-12, "mm method");
  // Transposed and sliced operands.
  expect_close(mm(a.t().contiguous().t(), b), expected, 1e-12, 1e-12, "mm transposed a");
  Tensor padded = zeros({3, 9}, kFloat64);
  padded.narrow(1, 2, 4).copy_(a);
  expect_close(mm(padded.narrow(1, 2, 4), b), expected, 1e-12, 1e-12, "mm sliced a (lda > cols)");
  Tensor strided = zeros({4, 10}, kFloat64);
  strided.slice(1, 0, 10, 2).copy_(b);
  expect_close(mm(a, strided.slice(1, 0, 10, 2)), expected, 1e-12, 1e-12, "mm step-2 b (copied)");
  Tensor out = empty({3, 5}, kFloat64);
  mm_out(out, a, b);
  expect_close(out, expected, 1e-12, 1e-12, "mm_out");
  Tensor out_t = empty({5, 3}, kFloat64).t();
  mm_out(out_t, a, b);
  expect_close(out_t, expected, 1e-12, 1e-12, "mm_out column-major out");
  // An out BLAS can't write directly (step-2 columns): computed aside, beta kept.
  Tensor wide = zeros({3, 10}, kFloat64);
  Tensor stepped = wide.slice(1, 0, 10, 2);
  mm_out(stepped, a, b);
  expect_close(stepped, expected, 1e-12, 1e-12, "mm_out step-2 out");
  EXPECT_EQ(at<double>(wide, {0, 1}), 0.0);
  stepped.addmm_(a, b, 2.0, 1.0);
  expect_close(stepped, expected * 3.0, 1e-12, 1e-12, "addmm_ step-2 self");

  Tensor ia = fixture("int_a"), ib = fixture("int_b");
  EXPECT_TRUE(bmm(ia, ib).equal(fixture("int_bmm")));
  EXPECT_TRUE(bmm(ia.to(kInt16), ib.to(kInt16)).equal(fixture("int_bmm").to(kInt16)));
  Tensor fb = bmm(ia.to(kFloat32), ib.to(kFloat32));
  EXPECT_TRUE(fb.equal(fixture("int_bmm").to(kFloat32)));
  Tensor bout = empty({0}, kInt64);
  bmm_out(bout, ia, ib);
  EXPECT_TRUE(bout.equal(fixture("int_bmm")));
  // Broadcast (stride-0) batch operand.
  Tensor one = ia.select(0, 0).unsqueeze(0).expand({2, 5, 7});
  EXPECT_TRUE(bmm(one.to(kFloat64), ib.to(kFloat64)).equal(bmm(one.contiguous(), ib).to(kFloat64)));
}

TEST(Linalg, LargeBatchedAndThreaded) {
  // Batch-parallel path (many small products) and threaded path (few large).
  Tensor a = arange(64 * 33 * 17, kFloat64).remainder(7).sub(3).view({64, 33, 17});
  Tensor b = arange(64 * 17 * 29, kFloat64).remainder(5).sub(2).view({64, 17, 29});
  Tensor ref = bmm(a.to(kInt64), b.to(kInt64)).to(kFloat64);
  EXPECT_TRUE(bmm(a, b).equal(ref));
  EXPECT_TRUE(bmm(a.to(kFloat32), b.to(kFloat32)).equal(ref.to(kFloat32)));
  Tensor big_a = arange(300 * 200, kFloat64).remainder(11).sub(5).view({300, 200});
  Tensor big_b = arange(200 * 260, kFloat64).remainder(13).sub(6).view({200, 260});
  Tensor big_ref = mm(big_a.to(kInt64), big_b.to(kInt64)).to(kFloat64);
  EXPECT_TRUE(mm(big_a, big_b).equal(big_ref));
  EXPECT_TRUE(mm(big_a.t().contiguous().t(), big_b.t().contiguous().t()).equal(big_ref));
  EXPECT_TRUE(mm(big_a.to(kBFloat16), big_b.to(kBFloat16)).to(kFloat64).allclose(big_ref, 1e-2, 1.0));
}

TEST(Linalg, AddmmFamily) {
  expect_close(addmm(fixture("addmm_self"), fixture("addmm_m1"), fixture("addmm_m2"), 0.5, 2.0),
               fixture("addmm_out"), 1e-12, 1e-12, "addmm");
  expect_close(baddbmm(fixture("baddbmm_self"), fixture("baddbmm_b1"), fixture("baddbmm_b2"), -1.0, 0.25),
               fixture("baddbmm_out"), 1e-12, 1e-12, "baddbmm");
  expect_close(addmv(fixture("addmv_self"), fixture("addmv_mat"), fixture("addmv_vec"), 2.0, -3.0),
               fixture("addmv_out"), 1e-12, 1e-12, "addmv");
  // In-place forms.
  Tensor self = fixture("addmm_self").expand({3, 5}).contiguous();
  self.addmm_(fixture("addmm_m1"), fixture("addmm_m2"), 0.5, 2.0);
  expect_close(self, fixture("addmm_out"), 1e-12, 1e-12, "addmm_");
  Tensor bself = fixture("baddbmm_self").clone();
  bself.baddbmm_(fixture("baddbmm_b1"), fixture("baddbmm_b2"), -1.0, 0.25);
  expect_close(bself, fixture("baddbmm_out"), 1e-12, 1e-12, "baddbmm_");
  Tensor vself = fixture("addmv_self").clone();
  vself.addmv_(fixture("addmv_mat"), fixture("addmv_vec"), 2.0, -3.0);
  expect_close(vself, fixture("addmv_out"), 1e-12, 1e-12, "addmv_");
  // Float32 and out=.
  Tensor out = empty({3, 5}, kFloat32);
  addmm_out(out, fixture("addmm_self").to(kFloat32), fixture("addmm_m1").to(kFloat32),
            fixture("addmm_m2").to(kFloat32), 0.5, 2.0);
  expect_close(out, fixture("addmm_out"), 1e-5, 1e-5, "addmm_out float32");
  // beta == 0 ignores self, NaNs included (gemm and gemv paths).
  Tensor nan_self = full({3, 5}, std::numeric_limits<double>::quiet_NaN(), kFloat64);
  Tensor r = addmm(nan_self, fixture("addmm_m1"), fixture("addmm_m2"), 0, 1);
  EXPECT_TRUE(r.isfinite().all().item<bool>());
  Tensor rv = addmv(full({3}, NAN, kFloat32), fixture("addmv_mat").to(kFloat32),
                    fixture("addmv_vec").to(kFloat32), 0, 1);
  EXPECT_TRUE(rv.isfinite().all().item<bool>());
  // Integer coefficients for integer tensors.
  Tensor ia = ones({2, 2}, kInt64);
  EXPECT_TRUE(addmm(ia, ia, ia, 3, 2).equal(full({2, 2}, 7, kInt64)));
  EXPECT_THROW(addmm(ia, ia, ia, 0.5, 1), Error);
}

TEST(Linalg, DotVdotMvOuter) {
  Tensor v = fixture("matmul_dot_a"), w = fixture("matmul_dot_b");
  expect_close(dot(v, w), fixture("matmul_dot_out"), 1e-12, 1e-12, "dot");
  expect_close(v.to(kFloat32).dot(w.to(kFloat32)), fixture("matmul_dot_out"), 1e-5, 1e-5, "dot float32");
  expect_close(dot(v.to(kBFloat16), w.to(kBFloat16)), fixture("matmul_dot_out"), 5e-2, 5e-2, "dot bfloat16");
  expect_close(dot(fixture("complex_v"), fixture("complex_w")), fixture("complex_dot"), 1e-12, 1e-12, "complex dot");
  expect_close(vdot(fixture("complex_v"), fixture("complex_w")), fixture("complex_vdot"), 1e-12, 1e-12, "vdot");
  expect_close(vdot(fixture("complex_v").to(kComplex64), fixture("complex_w").to(kComplex64)),
               fixture("complex_vdot"), 1e-5, 1e-5, "vdot complex64");
  expect_close(vdot(v, w), fixture("matmul_dot_out"), 1e-12, 1e-12, "vdot real");
  // Strided and expanded vectors.
  Tensor x = arange(10, kFloat64).slice(0, 0, 10, 2);
  Tensor y = full({1}, 2.0, kFloat64).expand({5});
  EXPECT_DOUBLE_EQ(dot(x, y).item<double>(), 40.0);
  EXPECT_EQ(dot(arange(4, kInt64), arange(4, kInt64)).item<int64_t>(), 14);
  EXPECT_EQ(dot(empty({0}), empty({0})).item<float>(), 0.f);

  expect_close(mv(fixture("matmul_mv_a"), fixture("matmul_mv_b")), fixture("matmul_mv_out"), 1e-12, 1e-12, "mv");
  expect_close(mv(column_major(fixture("matmul_mv_a")).to(kFloat32), fixture("matmul_mv_b").to(kFloat32)),
               fixture("matmul_mv_out"), 1e-5, 1e-5, "mv column-major float32");
  Tensor o = outer(arange(3, kFloat32), arange(4, kFloat32));
  EXPECT_EQ(o.sizes(), IntArrayRef({3, 4}));
  EXPECT_FLOAT_EQ(at<float>(o, {2, 3}), 6.f);
  EXPECT_TRUE(ger(arange(3), arange(2)).equal(o.narrow(1, 0, 2).to(kInt64)));

  Tensor ca = fixture("complex_a"), cb = fixture("complex_b");
  expect_close(mm(ca, cb), fixture("complex_mm"), 1e-12, 1e-12, "complex mm");
  expect_close(mm(column_major(ca).to(kComplex64), cb.to(kComplex64)), fixture("complex_mm"), 1e-5, 1e-5,
               "complex64 mm column-major");
}

TEST(Linalg, EmptyAndDegenerate) {
  // K == 0: zeros (or beta * self).
  Tensor z = mm(empty({3, 0}), empty({0, 4}));
  EXPECT_EQ(z.sizes(), IntArrayRef({3, 4}));
  EXPECT_TRUE(z.equal(zeros({3, 4})));
  EXPECT_TRUE(addmm(ones({3, 4}), empty({3, 0}), empty({0, 4}), 2, 1).equal(full({3, 4}, 2.f)));
  EXPECT_EQ(mm(empty({0, 3}), empty({3, 4})).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(bmm(empty({0, 2, 3}), empty({0, 3, 4})).sizes(), IntArrayRef({0, 2, 4}));
  EXPECT_EQ(matmul(empty({2, 0, 3}), empty({3, 5})).sizes(), IntArrayRef({2, 0, 5}));
  EXPECT_EQ(matmul(empty({0, 3}), empty({3})).sizes(), IntArrayRef({0}));
  // Output aliasing an input is computed aside.
  Tensor a = fixture("matmul_mm_a"), sq = a.narrow(1, 0, 3).contiguous();
  Tensor expected = mm(sq, sq);
  Tensor alias = sq.clone();
  mm_out(alias, alias, sq);
  expect_close(alias, expected, 1e-12, 1e-12, "mm_out aliasing");
}

TEST(Linalg, ShapeAndDtypeErrors) {
  try {
    mm(ones({2, 3}), ones({4, 5}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
              std::string::npos)
        << e.what();
  }
  try {
    mm(ones({2, 3}), ones({3, 5}, kFloat64));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("mm"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
  }
  EXPECT_THROW(mm(ones({2, 3, 1}), ones({3, 5})), Error);
  EXPECT_THROW(mm(ones({2, 2}, kBool), ones({2, 2}, kBool)), Error);
  EXPECT_THROW(bmm(ones({2, 2, 3}), ones({3, 3, 5})), Error);
  EXPECT_THROW(bmm(ones({2, 2, 3}), ones({2, 4, 5})), Error);
  EXPECT_THROW(bmm(ones({2, 3}), ones({3, 5})), Error);
  EXPECT_THROW(matmul(ones({2, 3}), ones({4})), Error);
  EXPECT_THROW(matmul(ones({}), ones({3})), Error);
  EXPECT_THROW(matmul(ones({2, 2, 3}), ones({3, 3, 4})), Error);  // batch dims don't broadcast
  EXPECT_THROW(matmul(ones({3}), ones({3}, kInt64)), Error);
  EXPECT_THROW(dot(ones({2}), ones({3})), Error);
  EXPECT_THROW(dot(ones({2, 1}), ones({2})), Error);
  EXPECT_THROW(mv(ones({2, 3}), ones({2})), Error);
  EXPECT_THROW(mv(ones({2, 3}), ones({3, 1})), Error);
  EXPECT_THROW(outer(ones({2, 3}), ones({3})), Error);
  EXPECT_THROW(addmm(ones({4, 4}), ones({2, 3}), ones({3, 5})), Error);  // self doesn't broadcast
  Tensor self = ones({2, 2});
  EXPECT_THROW(self.addmm_(ones({2, 3}), ones({3, 5})), Error);
  EXPECT_THROW(addmm(ones({2, 5}), ones({2, 3}), ones({3, 5}), std::complex<double>(1, 1), 1), Error);
  Tensor out = empty({2, 2}, kFloat32);
  EXPECT_THROW(mm_out(out, ones({2, 3}), ones({3, 5})), Error);
}

TEST(Linalg, EinsumFixtures) {
  const std::pair<const char*, const char*> cases[] = {
      {"matmul", "ij,jk->ik"},
      {"implicit_matmul", "ij,jk"},
      {"transpose", "ij->ji"},
      {"trace", "ii"},
      {"diag", "ii->i"},
      {"sum_all", "ijk->"},
      {"row_sum", "ij->i"},
      {"outer", "i,j->ij"},
      {"inner", "i,i"},
      {"bmm", "bij,bjk->bik"},
      {"ellipsis_bmm", "...ij,...jk->...ik"},
      {"ellipsis_bcast", "...ij,jk"},
      {"ellipsis_mixed", "b...,b...->..."},
      {"three_ops", "ij,jk,kl->il"},
      {"bilinear", "bn,anm,bm->ba"},
      {"upper_case", "Ab,bC"},
      {"repeated_in_two", "iij,jk->ik"},
      {"permute_output", "abc->cab"},
      {"hadamard", "ij,ij->ij"},
      {"batch_diag", "...ii->...i"},
      {"broadcast_size1", "ij,jk->ik"},
      {"contract_ellipsis", "i...->i"},
      {"spaces", "i j , j k -> i k"},
      {"transposed_right", "bij,bkj->bik"},
      {"elementwise_keep", "i,i->i"},
      {"frobenius", "ij,ij->"},
      {"ellipsis_middle", "a...b->...ab"},
      {"ellipsis_uneven", "...ij,...jk"},
      {"batch_outer", "bi,bj->bij"},
  };
  for (const auto& [name, eq] : cases) {
    std::vector<Tensor> ops;
    for (int i = 0;; ++i) {
      const std::string path = fixture_path("core/linalg/einsum_" + std::string(name) + "_" +
                                            std::to_string(i) + ".npy");
      if (!std::ifstream(path).good()) break;
      ops.push_back(load_npy(path));
    }
    const Tensor expected = fixture(std::string("einsum_") + name + "_out");
    expect_close(einsum(eq, ops), expected, 1e-12, 1e-12, std::string("einsum ") + eq);
    std::vector<Tensor> f32;
    for (const Tensor& t : ops) f32.push_back(column_major(t).to(kFloat32));
    expect_close(einsum(eq, f32), expected, 1e-4, 1e-4, std::string("einsum float32 strided ") + eq);
  }
}

TEST(Linalg, EinsumIntegerAndErrors) {
  Tensor a = arange(6, kInt32).view({2, 3}), b = arange(12, kInt32).view({3, 4});
  Tensor r = einsum("ij,jk->ik", {a, b});
  EXPECT_EQ(r.dtype(), kInt32);
  EXPECT_TRUE(r.equal(mm(a, b)));
  EXPECT_EQ(einsum("ij->", {a}).item<int32_t>(), 15);
  EXPECT_THROW(einsum("ij,jk->ik", {a}), Error);               // operand count
  EXPECT_THROW(einsum("ijk", {a}), Error);                     // too many subscripts
  EXPECT_THROW(einsum("i", {a}), Error);                       // too few, no ellipsis
  EXPECT_THROW(einsum("ij->k", {a}), Error);                   // unknown output label
  EXPECT_THROW(einsum("ij->ii", {a}), Error);                  // repeated output label
  EXPECT_THROW(einsum("i1", {a}), Error);                      // bad character
  EXPECT_THROW(einsum("i..j", {a}), Error);                    // broken ellipsis
  EXPECT_THROW(einsum("ii", {a}), Error);                      // diagonal of a non-square
  EXPECT_THROW(einsum("ij,jk", {a, ones({4, 4}, kInt32)}), Error);  // j sizes 3 vs 4
  EXPECT_THROW(einsum("ij,jk", {a, ones({3, 4})}), Error);     // dtypes differ
  EXPECT_THROW(einsum("", {}), Error);
}

TEST(Linalg, Tensordot) {
  auto check = [](const char* name, const Tensor& result) {
    expect_close(result, fixture(std::string("tensordot_") + name + "_out"), 1e-12, 1e-12,
                 std::string("tensordot ") + name);
  };
  auto a = [](const char* n) { return fixture(std::string("tensordot_") + n + "_a"); };
  auto b = [](const char* n) { return fixture(std::string("tensordot_") + n + "_b"); };
  check("int2", tensordot(a("int2"), b("int2"), 2));
  check("int0", tensordot(a("int0"), b("int0"), 0));
  check("lists", tensordot(a("lists"), b("lists"), {1, 0}, {0, 2}));
  check("negative", tensordot(a("negative"), b("negative"), {-1}, {-2}));
  EXPECT_THROW(tensordot(ones({2, 3}), ones({4, 3}), {1}, {0}), Error);
  EXPECT_THROW(tensordot(ones({2, 3}), ones({3, 4}), {1}, {0, 1}), Error);
  EXPECT_THROW(tensordot(ones({2, 3}), ones({3, 4}), {2}, {0}), Error);
  EXPECT_THROW(tensordot(ones({2, 3}), ones({3, 4}), -1), Error);
  EXPECT_THROW(tensordot(ones({2, 3}), ones({3}), 2), Error);
}

TEST(Linalg, ResultsIndependentOfThreadCount) {
  Tensor a = arange(8 * 64 * 48, kFloat32).remainder(1.37f).view({8, 64, 48});
  Tensor b = arange(8 * 48 * 40, kFloat32).remainder(0.91f).view({8, 48, 40});
  const int saved = get_num_threads();
  set_num_threads(1);
  Tensor one = bmm(a, b);
  Tensor big_one = mm(a.view({-1, 48}), b.select(0, 0));
  set_num_threads(2);
  Tensor two = bmm(a, b);
  Tensor big_two = mm(a.view({-1, 48}), b.select(0, 0));
  Tensor big_two_again = mm(a.view({-1, 48}), b.select(0, 0));
  set_num_threads(saved);
  // Small batched products run each GEMM whole on one thread: identical bits.
  EXPECT_TRUE(one.equal(two));
  // A threaded GEMM is OpenBLAS's: on some CPUs (its Zen kernels) the split
  // changes the last bits with the thread count; a fixed count repeats exactly.
  EXPECT_TRUE(big_two.equal(big_two_again));
  EXPECT_TRUE(allclose(big_one, big_two, 1e-6, 1e-5));
}

TEST(Linalg, FewRowsTimesWideRowMajorMatrix) {
  // Float32 products of 2-4 rows by a row-major right operand of at least 1 MB
  // run without BLAS (Note [Small-M products]); checked against float64 for
  // row counts on both sides of the limit, widths that are not whole 16-column
  // blocks, strided left operands, alpha / beta, and beta == 0 over NaN; k
  // both a multiple of the 4 weight rows taken at a time and not, n over more
  // than one 512-column chunk with a partial last one (Note [Small-M
  // products, streaming the weight]).
  for (const int64_t m : {2, 3, 4, 5}) {
    for (const auto& [n, k] : {std::pair<int64_t, int64_t>{1024, 300}, {1030, 300}, {1100, 303}}) {
      const Tensor a = arange(m * k, kFloat32).remainder(1.37f).sub(0.6f).view({m, k});
      const Tensor b = arange(k * n, kFloat32).remainder(0.91f).sub(0.4f).view({k, n});
      const Tensor self = arange(m * n, kFloat32).remainder(0.53f).view({m, n});
      const Tensor ref = a.to(kFloat64).matmul(b.to(kFloat64));
      const std::string what = "m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " + std::to_string(k);
      expect_close(mm(a, b), ref, 1e-5, 1e-4, "mm " + what);
      expect_close(mm(column_major(a), b), ref, 1e-5, 1e-4, "mm column-major a " + what);
      expect_close(addmm(self, a, b, 0.5, -2.0), self.to(kFloat64) * 0.5 - 2.0 * ref, 1e-5, 1e-4, "addmm " + what);
      Tensor out = full({m, n}, NAN, kFloat32);
      addmm_out(out, self, a, b, 0.0, 1.0);
      expect_close(out, ref, 1e-5, 1e-4, "addmm beta 0 over NaN " + what);
      // Rows of a wider output (row stride > n).
      Tensor wide = zeros({m, n + 7}, kFloat32);
      Tensor view = wide.slice(1, 0, n);
      mm_out(view, a, b);
      expect_close(view, ref, 1e-5, 1e-4, "mm into a strided output " + what);
      EXPECT_TRUE(wide.slice(1, n).eq(0).all().item<bool>()) << what;
    }
  }
}

TEST(Linalg, MatrixVectorRepeatsBitwise) {
  // Threaded gemv may split the inner dimension (so thread counts can differ
  // in the last bits), but a fixed thread count repeats exactly.
  Tensor m = arange(2000 * 1500, kFloat32).remainder(0.73f).view({2000, 1500});
  Tensor v = arange(2000, kFloat32).remainder(0.31f);
  Tensor first = matmul(v, m), second = matmul(v, m);
  EXPECT_TRUE(first.equal(second));
  EXPECT_TRUE(first.allclose(matmul(v.to(kFloat64), m.to(kFloat64)).to(kFloat32), 1e-4, 1e-3));
}

}  // namespace linalg_test
