// Plan construction: the factorization into radices, the twiddle tables (always
// computed in double and rounded once, so float plans keep float accuracy),
// the four-step split and Bluestein's chirp and convolution kernel.
#include "kernels/cpu/fft/plan.h"

#include <cmath>
#include <cstdlib>
#include <numbers>

#include "kernels/cpu/fft/single.h"

namespace ember::fft::detail {

std::complex<double> unit_root(int64_t num, int64_t den) {
  num %= den;
  if (num < 0) num += den;
  // Reduce to the first half turn (W^(den - m) = conj(W^m)) so the angle
  // stays small and its rounding error does too.
  const bool upper = 2 * num > den;
  if (upper) num = den - num;
  const double angle = 2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  const std::complex<double> w(std::cos(angle), -std::sin(angle));
  return upper ? std::conj(w) : w;
}

namespace {

// Radices for a length with no prime factor above kMaxRadix: as many 8s as
// possible (a 2 or 4 left over becomes a 4 or 4 * 4), then the odd primes.
std::vector<int> lane_radices(int64_t n) {
  std::vector<int> radices;
  int twos = 0;
  while (n % 2 == 0) {
    n /= 2;
    ++twos;
  }
  int eights = twos / 3;
  const int rest = twos % 3;
  const bool two_fours = rest == 1 && eights > 0;  // 8 * 2 as 4 * 4
  if (two_fours) --eights;
  for (int i = 0; i < eights; ++i) radices.push_back(8);
  if (two_fours) {
    radices.push_back(4);
    radices.push_back(4);
  } else if (rest == 1) {
    radices.push_back(2);
  } else if (rest == 2) {
    radices.push_back(4);
  }
  for (int64_t p = 3; n > 1; p += 2) {
    while (n % p == 0) {
      radices.push_back(static_cast<int>(p));
      n /= p;
    }
  }
  return radices;
}

int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  }
  return n > 1 ? n : largest;
}

// Rough cost per element of one pass of each radix (radix 8 does three
// halvings in one pass and is the cheapest per bit; 5 and 3 cost more).
double pass_cost(int radix) {
  switch (radix) {
    case 2: return 1.0;
    case 3: return 1.5;
    case 4: return 1.3;
    case 5: return 2.0;
    case 8: return 1.8;
    default: return 0.6 * radix;
  }
}

// Bluestein's convolution length: among the 2^a 3^b 5^c >= target, the
// cheapest by m * (sum of its passes' costs), not simply the smallest
// (2^21 beats 2025000 = 2^3 3^4 5^5 for n = 1000003).
int64_t convolution_length(int64_t target) {
  int64_t best = 1;
  while (best < target) best *= 2;
  auto cost = [](int64_t m) {
    double c = 0;
    for (int r : lane_radices(m)) c += pass_cost(r);
    return c * static_cast<double>(m);
  };
  double best_cost = cost(best);
  for (int64_t p5 = 1; p5 < 2 * target; p5 *= 5) {
    for (int64_t p35 = p5; p35 < 2 * target; p35 *= 3) {
      int64_t m = p35;
      while (m < target) m *= 2;
      if (const double c = cost(m); c < best_cost) {
        best = m;
        best_cost = c;
      }
    }
  }
  return best;
}

template <class T>
LanePlan<T> make_lane_plan(int64_t n) {
  LanePlan<T> plan;
  plan.n = n;
  int64_t l1 = 1;
  for (int radix : lane_radices(n)) {
    LanePass<T> pass;
    pass.radix = radix;
    pass.l1 = l1;
    pass.ido = n / (l1 * radix);
    pass.tw.resize((pass.ido - 1) * (radix - 1));
    for (int64_t i = 1; i < pass.ido; ++i) {
      for (int j = 1; j < radix; ++j) {
        pass.tw[(i - 1) * (radix - 1) + j - 1] = std::complex<T>(unit_root(j * l1 * i, n));
      }
    }
    if (radix % 2 == 1) {
      for (int m = 0; m < radix; ++m) {
        // cos/sin of +2 pi m / p: unit_root is exp(-2 pi i m / p).
        const std::complex<double> w = unit_root(m, radix);
        pass.cos_tab.push_back(static_cast<T>(w.real()));
        pass.sin_tab.push_back(static_cast<T>(-w.imag()));
      }
    }
    plan.passes.push_back(std::move(pass));
    l1 *= radix;
  }
  return plan;
}

// n = n1 * n2 with n1 <= n2 as close to sqrt(n) as possible, preferring both
// multiples of kLanes (no partially filled lane blocks).
template <class T>
std::pair<int64_t, int64_t> four_step_split(int64_t n) {
  constexpr int L = kLanes<T>;
  auto waste = [](int64_t d) {
    return static_cast<double>((d + L - 1) / L * L) / static_cast<double>(d) - 1.0;
  };
  int64_t best = 1;
  double best_cost = 1e300;
  for (int64_t d = 2; d * d <= n; ++d) {
    if (n % d) continue;
    const double cost =
        std::abs(std::log2(static_cast<double>(d)) - std::log2(static_cast<double>(n / d))) +
        4.0 * (waste(d) + waste(n / d));
    if (cost < best_cost) {
      best_cost = cost;
      best = d;
    }
  }
  return {best, n / best};
}

template <class T>
void init_four_step(Plan<T>& plan) {
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  const int64_t n = plan.n;
  std::tie(plan.n1, plan.n2) = four_step_split<T>(n);
  const int64_t n1 = plan.n1, n2 = plan.n2;
  plan.col = make_lane_plan<T>(n1);
  plan.row = make_lane_plan<T>(n2);
  const int64_t col_blocks = (n2 + L - 1) / L;
  plan.tw_lane.assign(n1 * E, T(0));
  for (int64_t k1 = 0; k1 < n1; ++k1) {
    for (int l = 0; l < L; ++l) {
      const std::complex<double> w = unit_root(l * k1, n);
      plan.tw_lane[k1 * E + l] = static_cast<T>(w.real());
      plan.tw_lane[k1 * E + L + l] = static_cast<T>(w.imag());
    }
  }
  plan.tw_block.resize(col_blocks * n1);
  for (int64_t cb = 0; cb < col_blocks; ++cb) {
    for (int64_t k1 = 0; k1 < n1; ++k1) {
      // (cb L k1) mod n without overflow: cb L < n2 + L and k1 < n1.
      plan.tw_block[cb * n1 + k1] = std::complex<T>(unit_root((cb * L % n) * k1 % n, n));
    }
  }
}

template <class T>
void init_bluestein(Plan<T>& plan) {
  const int64_t n = plan.n;
  plan.m = convolution_length(2 * n - 1);
  const int64_t m = plan.m;
  plan.inner = get_plan<T>(m);
  // exp(-i pi j^2 / n) = W_{2n}^(j^2 mod 2n); j^2 in 128 bits for any n.
  std::vector<std::complex<double>> chirp(n);
  for (int64_t j = 0; j < n; ++j) {
    const auto sq = static_cast<unsigned __int128>(j) * static_cast<unsigned __int128>(j);
    chirp[j] = unit_root(static_cast<int64_t>(sq % static_cast<unsigned __int128>(2 * n)), 2 * n);
  }
  plan.chirp.assign(chirp.begin(), chirp.end());
  // The kernel is computed in double whatever T is: its rounding error would
  // otherwise add to every transform's.
  const auto inner_d = get_plan<double>(m);
  plan.kernel.resize(m);
  std::complex<T>* kern = plan.kernel.data();
  const double inv_m = 1.0 / static_cast<double>(m);
  run_smooth(
      *inner_d,
      [&](int64_t j) {
        if (j < n) return std::conj(chirp[j]);
        if (m - j < n) return std::conj(chirp[m - j]);
        return std::complex<double>();
      },
      [&](int64_t k, std::complex<double> v) { kern[k] = std::complex<T>(v * inv_m); });
}

}  // namespace

template <class T>
std::shared_ptr<const Plan<T>> make_plan(int64_t n) {
  auto plan = std::make_shared<Plan<T>>();
  plan->n = n;
  if (largest_prime_factor(n) > kMaxRadix) {
    plan->kind = Plan<T>::Kind::Bluestein;
    init_bluestein(*plan);
  } else if (n > kFourStepMin) {
    plan->kind = Plan<T>::Kind::FourStep;
    init_four_step(*plan);
  } else {
    plan->kind = Plan<T>::Kind::Lanes;
    plan->lanes = make_lane_plan<T>(n);
  }
  return plan;
}

template <class T>
std::shared_ptr<const RealPlan<T>> make_real_plan(int64_t n) {
  auto plan = std::make_shared<RealPlan<T>>();
  plan->n = n;
  plan->half = get_plan<T>(n / 2);
  plan->tw.resize(n / 2 + 1);
  for (int64_t k = 0; k <= n / 2; ++k) plan->tw[k] = std::complex<T>(unit_root(k, n));
  return plan;
}

template std::shared_ptr<const Plan<float>> make_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> make_plan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> make_real_plan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> make_real_plan<double>(int64_t);

}  // namespace ember::fft::detail
