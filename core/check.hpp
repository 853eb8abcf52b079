// Argument checks with messages that name the argument and its shape.
//
// Every public core function validates its inputs with these before computing,
// so a wrong shape or a non-finite entry becomes an InputError (never a silent
// NaN). The bindings and the CLI forward what() unchanged.
#pragma once

#include "core/matrix.hpp"

#include <stdexcept>
#include <string>

namespace headlab {

class InputError : public std::invalid_argument {
 public:
  explicit InputError(const std::string& message) : std::invalid_argument(message) {}
};

// Throws unless m has at least one row and one column.
void require_nonempty(const char* name, const Matrix& m);
// Throws unless every entry of m is finite; the message gives the first bad (row, col).
void require_finite(const char* name, const Matrix& m);
// Throws unless m has exactly rows × cols.
void require_shape(const char* name, const Matrix& m, Eigen::Index rows, Eigen::Index cols);
// Nonempty and finite: the usual precondition of a matrix argument.
void require_usable(const char* name, const Matrix& m);
// Throws unless every entry of m is finite and |entry| <= bound; the message names m, the first
// bad (row, col), its value and the bound. The bounds are chosen per computation (each caller
// says which products it must keep finite); see docs/limits.md.
void require_bounded(const char* name, const Matrix& m, double bound);
// A number for a message: 6 significant digits ("1e+200", "3e+307"), never the hundreds of
// digits std::to_string prints for a large double.
std::string number_text(double x);
// An AdamW recipe's two rates: learning_rate finite and > 0, weight_decay finite and ≥ 0, and
// learning_rate·weight_decay < 1: the decoupled decay multiplies every weight by 1 − their product
// per step, which at or past 1 zeroes or flips them all. That message names both settings and their
// product, since either may be the one set wrong.
void require_adamw_rates(double learning_rate, double weight_decay);
// 2^53 − 1: the largest seed, for every command and every module. The widgets hold seeds as JS
// numbers, which are exact integers up to 2^53; one below it keeps every seed's successor exact too.
constexpr long long kMaxSeed = 9007199254740991LL;
// The one message for a seed out of range, worded the same by the CLI (flag text) and the WASM
// modules (a JS number): "<name> must be an integer in [0, 9007199254740991], got "<got>"".
std::string seed_range_message(const std::string& name, const std::string& got);
// The one wording of a setting's range, for every validate() of a settings or config struct
// (docs/model-pattern.md): "<name> must lie in [low, high], got <value>", "(0, high]" for a scale,
// "must be finite and > 0" / "≥ 0" for an unbounded number. Integers print whole, doubles as
// number_text. A non-finite double is refused by each.
void require_integer_in(const char* name, long long value, long long low, long long high);
void require_number_in(const char* name, double value, double low, double high);
void require_scale(const char* name, double value, double high);
void require_positive(const char* name, double value);
void require_nonnegative(const char* name, double value);
// Throws unless 0 <= index < size.
void require_index(const char* name, Eigen::Index index, Eigen::Index size);

}  // namespace headlab
