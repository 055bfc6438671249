// Early-return helpers for Status and Result inside the library.
#pragma once

#include "cairn/result.h"
#include "cairn/status.h"

#define CAIRN_CONCAT_INNER(a, b) a##b
#define CAIRN_CONCAT(a, b) CAIRN_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when it is not OK.
#define CAIRN_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::cairn::Status cairn_status_ = (expr);        \
    if (!cairn_status_.ok()) return cairn_status_; \
  } while (false)

// Evaluates a Result; returns its Status when it failed, else moves its value into lhs.
#define CAIRN_ASSIGN_OR_RETURN(lhs, expr) \
  CAIRN_ASSIGN_OR_RETURN_IMPL(CAIRN_CONCAT(cairn_result_, __LINE__), lhs, expr)
#define CAIRN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
