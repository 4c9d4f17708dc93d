// cg_solver [n] [iterations]: conjugate gradients on a tridiagonal system of n unknowns (default
// 200,000; 30 iterations), written as templated solvers are: the matrix-vector product is a
// functor whose operator() holds a parallel loop, and a dot product template another, both
// inlined into the solver template at several call sites (the product twice, the dot product
// three times). A region's label must name the functor and the call site it was inlined at,
// short and unambiguous: clang's DWARF 5 for this code made libdw's scope lookup fail, so every
// region took the solver's name and the copies were numbered "(copy 2)"; GCC names its template
// instances with their arguments, over 80 characters. Prints the solution's checksum, which does
// not depend on the thread count.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"

namespace ompscale_test_apps::sparse_linear_algebra {

template <typename Scalar, typename Index>
struct CompressedRowMatrix {
  std::vector<Index> row_start, columns;
  std::vector<Scalar> values;
  Index rows() const { return static_cast<Index>(row_start.size()) - 1; }
};

template <typename Scalar, typename Index>
struct SymmetricMatrixVectorProduct {
  const CompressedRowMatrix<Scalar, Index>& matrix;
  void operator()(const std::vector<Scalar>& x, std::vector<Scalar>& y) const {
    const Index n = matrix.rows();
#pragma omp parallel for schedule(static)
    for (Index i = 0; i < n; ++i) {
      Scalar sum = 0;
      for (Index k = matrix.row_start[i]; k < matrix.row_start[i + 1]; ++k) {
        sum += matrix.values[k] * x[matrix.columns[k]];
      }
      y[i] = sum;
    }
  }
};

template <typename Scalar>
Scalar dot(const std::vector<Scalar>& x, const std::vector<Scalar>& y) {
  Scalar sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::size_t i = 0; i < x.size(); ++i) sum += x[i] * y[i];
  return sum;
}

template <typename Scalar, typename Operator>
int conjugate_gradients(const Operator& apply, const std::vector<Scalar>& b, std::vector<Scalar>& x,
                        int iterations) {
  const std::size_t n = b.size();
  std::vector<Scalar> r(n), p(n), ap(n);
  apply(x, ap);
  for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - ap[i];
  p = r;
  Scalar rr = dot(r, r);
  int done = 0;
  for (; done < iterations && rr > 1e-30; ++done) {
    apply(p, ap);
    const Scalar alpha = rr / dot(p, ap);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    const Scalar next = dot(r, r);
    for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + next / rr * p[i];
    rr = next;
  }
  return done;
}

}  // namespace ompscale_test_apps::sparse_linear_algebra

int main(int argc, char** argv) {
  namespace la = ompscale_test_apps::sparse_linear_algebra;
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 200000));
  const int iterations = static_cast<int>(apps::arg_or(argc, argv, 2, 30));
  la::CompressedRowMatrix<double, std::int64_t> a;
  a.row_start.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (const std::int64_t j : {i - 1, i, i + 1}) {
      if (j < 0 || j >= n) continue;
      a.columns.push_back(j);
      a.values.push_back(j == i ? 4.0 : -1.0);
    }
    a.row_start.push_back(static_cast<std::int64_t>(a.columns.size()));
  }
  std::vector<double> b(static_cast<std::size_t>(n), 1.0), x(static_cast<std::size_t>(n), 0.0);
  const la::SymmetricMatrixVectorProduct<double, std::int64_t> apply{a};
  const int done = la::conjugate_gradients(apply, b, x, iterations);
  // Rounded: the reductions' order differs with the thread count.
  std::printf("cg_solver %lld: %d iterations, x[n/2] = %.6f\n", static_cast<long long>(n), done,
              x[static_cast<std::size_t>(n / 2)]);
  return 0;
}
