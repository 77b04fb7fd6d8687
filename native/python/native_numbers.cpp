// The counts analysis/numbers.py makes of a method's, class's or file's lines and branch lines: statements, missed,
// branch outcomes, outcomes covered, partial lines and cyclomatic complexity (the rules are stated there, at
// `line_numbers` and `cyclomatic_complexity`). A report asks them of every method, so they are counted here for many
// at once, reading the model's dicts and BranchCoverage objects as they are.
#include "native_numbers.h"

#include <algorithm>
#include <cstdint>

namespace py = pybind11;

namespace {

// -1, 0 or 1 as `v` (an int; any number-like object through Python's comparison) is below, at or above 0.
int Sign(PyObject* v) {
  if (PyLong_CheckExact(v)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) return overflow;
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    return (x > 0) - (x < 0);
  }
  static PyObject* zero = PyLong_FromLong(0);
  const int gt = PyObject_RichCompareBool(v, zero, Py_GT);
  if (gt < 0) throw py::error_already_set();
  if (gt) return 1;
  const int eq = PyObject_RichCompareBool(v, zero, Py_EQ);
  if (eq < 0) throw py::error_already_set();
  return eq ? 0 : -1;
}

// An attribute of `obj` by an interned name (pybind11's attr("...") would make the name's str on every call).
py::object Attr(PyObject* obj, PyObject* name) {
  PyObject* v = PyObject_GetAttr(obj, name);
  if (v == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(v);
}

PyObject* Name(const char* text) {
  PyObject* s = PyUnicode_InternFromString(text);
  if (s == nullptr) throw py::error_already_set();
  return s;  // (kept for the process's life)
}

long long Int(PyObject* v) {
  const long long x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return x;
}

// (statements, missed, outcomes, outcomes covered, partial lines, cyclomatic complexity) of one lines dict
// (line -> hits) and branches dict (line -> BranchCoverage).
py::tuple Count(const py::handle& lines_obj, const py::handle& branches_obj) {
  if (!PyDict_Check(lines_obj.ptr()) || !PyDict_Check(branches_obj.ptr()))
    throw py::type_error("line_counts: expected (lines dict, branches dict) pairs");
  static PyObject* const total_name = Name("total");
  static PyObject* const covered_name = Name("covered");
  static PyObject* const outcome_hits_name = Name("outcome_hits");
  PyObject* lines = lines_obj.ptr();
  long long missed = 0;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(lines, &pos, &key, &value)) missed += Sign(value) == 0;
  long long outcomes = 0, covered = 0, partial = 0, complexity = 1;
  pos = 0;
  while (PyDict_Next(branches_obj.ptr(), &pos, &key, &value)) {
    const long long total = Int(Attr(value, total_name).ptr());
    const long long taken = std::min(Int(Attr(value, covered_name).ptr()), total);
    outcomes += total;
    covered += taken;
    if (taken < total) {
      PyObject* hits = PyDict_GetItemWithError(lines, key);
      if (hits == nullptr && PyErr_Occurred()) throw py::error_already_set();
      partial += hits != nullptr && Sign(hits) > 0;
    }
    // One decision per outcome beyond the first of each branch instruction that has outcomes.
    const py::object outcome_hits = Attr(value, outcome_hits_name);
    const int any = PyObject_IsTrue(outcome_hits.ptr());
    if (any < 0) throw py::error_already_set();
    if (any) {
      for (const py::handle entry : outcome_hits) {
        // (offset, hits): read in place when a tuple of a list, as the model makes them
        PyObject* e = entry.ptr();
        PyObject* hits = PyTuple_Check(e) && PyTuple_GET_SIZE(e) == 2 ? PyTuple_GET_ITEM(e, 1) : nullptr;
        const Py_ssize_t n = hits != nullptr && PyList_Check(hits) ? PyList_GET_SIZE(hits)
                                                                   : py::len(entry[py::int_(1)]);
        if (n > 0) complexity += n - 1;
      }
    } else {
      // (a hand-built line without them: one instruction of `total` outcomes, model.branch_outcomes)
      const long long n = std::max(taken, 0LL) + std::max(total - taken, 0LL);
      if (n > 0) complexity += n - 1;
    }
  }
  return py::make_tuple(PyDict_Size(lines), missed, outcomes, covered, partial, complexity);
}

py::list LineCounts(const py::iterable& pairs) {
  py::list out;
  for (const py::handle pair : pairs) {
    if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2)
      throw py::type_error("line_counts: expected (lines dict, branches dict) pairs");
    out.append(Count(PyTuple_GET_ITEM(pair.ptr(), 0), PyTuple_GET_ITEM(pair.ptr(), 1)));
  }
  return out;
}

}  // namespace

void RegisterNumbers(py::module_& m) {
  m.def("line_counts", &LineCounts, py::arg("pairs"),
        "Of each (lines, branches) pair (line -> hits, line -> BranchCoverage): (statements, missed, outcomes, "
        "outcomes covered, partial lines, cyclomatic complexity), as analysis/numbers.py defines them.");
}
