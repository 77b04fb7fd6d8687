// A packed module plan (src/dotcov/analysis/plans/packed.py) applied to one module build's hit counts: the product's
// only implementation of that rule (tests/oracles/apply_plan.py states it in Python, for tests), without an
// interpreter step per line. In two parts: the files and classes (apply_plan), and the methods (apply_methods, made
// only when a writer reads them: the table never does). The maps' values are the hit
// objects themselves (no new ints), and each line number is made once per file and shared by the file's, its
// classes' and its methods' maps.
#include "native_apply.h"
#include "py_objects.h"

#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

using dotcov_py::Steal;

struct Ints {
  const int32_t* p = nullptr;
  size_t n = 0;
  int32_t operator[](size_t i) const { return p[i]; }
};

Ints IntsOf(py::handle blob, const char* what) {
  if (!PyBytes_Check(blob.ptr())) throw py::type_error(std::string(what) + ": bytes expected");
  const Py_ssize_t size = PyBytes_GET_SIZE(blob.ptr());
  if (size % 4) throw py::value_error(std::string(what) + ": not a whole number of int32");
  return {reinterpret_cast<const int32_t*>(PyBytes_AS_STRING(blob.ptr())), static_cast<size_t>(size / 4)};
}

[[noreturn]] void Damaged(const char* what) { throw py::value_error(std::string("packed plan: ") + what); }

bool Compare(PyObject* a, PyObject* b, int op) {
  const int r = PyObject_RichCompareBool(a, b, op);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

// Branch outcomes gathered on one line of a file or a method (one BranchCoverage when done).
struct Lines {
  size_t owner;  // a file index, or the number of files + a method's index over all classes
  py::object line;
  py::list missed, conditions, outcome_hits;
  Py_ssize_t covered = 0, total = 0;
};

// The model's part (files and classes: `model`) and the methods' part (`methods`), either or both; each class's
// (methods with lines, those that ran, their complexity) always: what analysis/numbers.py counts from the methods.
py::tuple Apply(py::list files, py::list classes, py::bytes records, py::list missed, py::list hits,
                py::list expr_values, py::bytes point_sites, py::object branch_type, bool model, bool methods) {
  const Ints sites = IntsOf(point_sites, "point sites");
  const Py_ssize_t n_hits = PyList_GET_SIZE(hits.ptr());
  py::object zero = Steal(PyLong_FromLong(0));
  // A counter's hits (borrowed from `hits`); one past the end is the 0 of a point the agent did not count.
  auto counter = [&](int64_t site) -> PyObject* {
    if (site == n_hits || site == -1) return zero.ptr();
    if (site < 0 || site > n_hits) throw py::index_error("a plan names a counter the data does not have");
    return PyList_GET_ITEM(hits.ptr(), site);
  };
  auto point_hits = [&](int32_t id) -> PyObject* {
    if (id < 0 || static_cast<size_t>(id) >= sites.n) Damaged("a point id out of range");
    return counter(sites[id]);
  };

  // Line numbers repeat from file to file: one int object for each number.
  // (Numbers past kShared, which no real source reaches, each get their own, kept in `more`.)
  constexpr size_t kShared = 1 << 20;
  std::vector<py::object> numbers, more;
  auto number = [&](int32_t line) -> const py::object& {
    if (line < 0) Damaged("a negative line number");
    const size_t n = static_cast<size_t>(line);
    if (n >= kShared) return more.emplace_back(Steal(PyLong_FromLong(line)));
    if (n >= numbers.size()) numbers.resize(std::max(n + 1, 2 * numbers.size()));
    py::object& o = numbers[n];
    if (!o) o = Steal(PyLong_FromLong(line));
    return o;
  };

  // Files: each line's hits are its first point's, or the most of its points' (lines.py's deciding points).
  const size_t n_files = static_cast<size_t>(PyList_GET_SIZE(files.ptr()));
  std::vector<std::vector<PyObject*>> keys(n_files);  // borrowed from `numbers`
  std::vector<std::vector<PyObject*>> values(n_files);  // borrowed from hits (and `zero`)
  std::vector<Ints> multis(n_files);
  std::vector<std::vector<int32_t>> multi_at(n_files);  // position -> its point ids' index in multis[f], or -1
  py::list file_lines;
  for (size_t f = 0; f < n_files; ++f) {
    py::tuple row = py::reinterpret_borrow<py::tuple>(PyList_GET_ITEM(files.ptr(), f));
    if (row.size() != 3) Damaged("a file row");
    const Ints lines = IntsOf(row[0], "file lines"), first = IntsOf(row[1], "first points"),
               multi = IntsOf(row[2], "multi-point lines");
    if (first.n != lines.n) Damaged("a file's lines and points differ in number");
    auto& k = keys[f];
    auto& v = values[f];
    k.reserve(lines.n);
    v.reserve(lines.n);
    for (size_t i = 0; i < lines.n; ++i) {
      k.push_back(number(lines[i]).ptr());
      v.push_back(point_hits(first[i]));
    }
    multis[f] = multi;
    if (multi.n) multi_at[f].assign(lines.n, -1);
    for (size_t i = 0; i < multi.n;) {  // (position, count, point ids...)
      if (i + 2 > multi.n) Damaged("a multi-point line");
      const int32_t pos = multi[i], count = multi[i + 1];
      i += 2;
      if (pos < 0 || static_cast<size_t>(pos) >= lines.n || count < 1 || i + count > multi.n)
        Damaged("a multi-point line");
      multi_at[f][pos] = static_cast<int32_t>(i - 2);
      PyObject* best = point_hits(multi[i]);
      for (int32_t j = 1; j < count; ++j) {
        PyObject* h = point_hits(multi[i + j]);
        if (Compare(h, best, Py_GT)) best = h;  // (max(): the first of equal values)
      }
      v[pos] = best;
      i += count;
    }
    if (!model) continue;
    py::object d = Steal(_PyDict_NewPresized(static_cast<Py_ssize_t>(lines.n)));
    for (size_t i = 0; i < lines.n; ++i)
      if (PyDict_SetItem(d.ptr(), k[i], v[i]) < 0) throw py::error_already_set();
    file_lines.append(d);
  }

  // Classes and their methods: each a range of its file's lines, or chosen positions of them.
  py::list class_lines, method_lines;
  std::vector<size_t> method_base;  // class index -> its first method's index over all classes
  std::vector<size_t> method_count;
  std::vector<uint8_t> measured, ran;  // per method over all classes: has lines, has a line that ran
  size_t n_methods = 0;
  for (py::handle h : classes) {
    py::tuple row = py::reinterpret_borrow<py::tuple>(h);
    if (row.size() != 4) Damaged("a class row");
    const long f = py::cast<long>(row[0]);
    if (f < 0 || static_cast<size_t>(f) >= n_files) Damaged("a class's file");
    const Ints specs = IntsOf(row[1], "class specs"), pool = IntsOf(row[2], "class positions"),
               ranges = IntsOf(row[3], "class methods");
    if (specs.n == 0 || specs.n % 3) Damaged("a class's specs");
    if (ranges.n != specs.n - 3) Damaged("a class's methods and specs differ in number");
    const auto& k = keys[f];
    const auto& v = values[f];
    const Ints& multi = multis[f];
    const auto& shared = multi_at[f];
    py::list of_class;
    for (size_t s = 0; s < specs.n; s += 3) {
      const int32_t kind = specs[s], a = specs[s + 1], b = specs[s + 2];
      py::object d;
      const bool make = s == 0 ? model : methods;
      if (kind != 0 && kind != 1) Damaged("a line spec kind");
      if (kind == 0 && (a < 0 || b < a || static_cast<size_t>(b) > k.size())) Damaged("a line range");
      if (kind == 1 && (a < 0 || b < a || static_cast<size_t>(b) > pool.n)) Damaged("a line list");
      // A method's line: the most hits of its own points among those deciding the line (lines.py, "a method's
      // own hits"), never another member's on the same line; its points are the ids [first, end).
      const int32_t first = s ? ranges[s - 2] : 0, end = s ? ranges[s - 1] : 0;
      auto value = [&](int32_t pos) -> PyObject* {
        if (s == 0 || shared.empty() || shared[pos] < 0) return v[pos];
        const int32_t at = shared[pos], count = multi[at + 1];
        PyObject* best = nullptr;
        for (int32_t j = 0; j < count; ++j) {
          const int32_t id = multi[at + 2 + j];
          if (id < first || id >= end) continue;
          PyObject* hit = point_hits(id);
          if (best == nullptr || Compare(hit, best, Py_GT)) best = hit;
        }
        return best != nullptr ? best : v[pos];
      };
      bool any = false;  // (a method's any(lines.values()): a hit count is an int, true unless 0)
      for (int32_t i = a; i < b; ++i) {
        const int32_t pos = kind == 0 ? i : pool[i];
        if (pos < 0 || static_cast<size_t>(pos) >= k.size()) Damaged("a line position");
        if (s && !any) {
          const int t = PyObject_IsTrue(value(pos));
          if (t < 0) throw py::error_already_set();
          any = t == 1;
        }
      }
      if (s) {
        measured.push_back(b > a);
        ran.push_back(any);
      }
      if (!make) continue;
      if (kind == 0) {  // file positions [a, b)
        if (s == 0 && a == 0 && static_cast<size_t>(b) == k.size()) {
          d = file_lines[f];  // a class with all its file's lines shares the file's map (model.py: read only)
        } else {
          d = Steal(_PyDict_NewPresized(b - a));
          for (int32_t i = a; i < b; ++i)
            if (PyDict_SetItem(d.ptr(), k[i], value(i)) < 0) throw py::error_already_set();
        }
      } else {  // file positions pool[a:b]
        d = Steal(_PyDict_NewPresized(b - a));
        for (int32_t i = a; i < b; ++i) {
          const int32_t pos = pool[i];
          if (PyDict_SetItem(d.ptr(), k[pos], value(pos)) < 0) throw py::error_already_set();
        }
      }
      if (s == 0)
        class_lines.append(d);
      else
        of_class.append(d);
    }
    method_base.push_back(n_methods);
    method_count.push_back(specs.n / 3 - 1);
    n_methods += specs.n / 3 - 1;
    method_lines.append(of_class);
  }

  // Branch records: (file, line, IL offset, class, method, is switch, outcome count, outcome codes...) with the
  // outcomes in kind order; a code >= 0 is a counter, -1 - i the i-th of `expr_values`. Each record's outcomes
  // join its file's line and, as a condition, its method's line.
  const Ints rec = IntsOf(records, "branch records");
  py::object jump = Steal(PyUnicode_InternFromString("jump")), switch_ = Steal(PyUnicode_InternFromString("switch"));
  std::vector<Lines> gathered;
  std::unordered_map<uint64_t, size_t> where;  // (owner, line) -> index in gathered
  const Py_ssize_t n_missed = PyList_GET_SIZE(missed.ptr()), n_expr = PyList_GET_SIZE(expr_values.ptr());
  std::vector<PyObject*> outcome;
  std::vector<Py_ssize_t> decisions(n_methods);  // per method: its outcomes beyond each instruction's first
  Py_ssize_t r = 0;
  for (size_t i = 0; i < rec.n; ++r) {
    if (i + 7 > rec.n) Damaged("a branch record");
    const int32_t file = rec[i], line = rec[i + 1], offset = rec[i + 2], ci = rec[i + 3], mi = rec[i + 4],
                  is_switch = rec[i + 5], n = rec[i + 6];
    i += 7;
    if (n < 0 || i + n > rec.n || r >= n_missed) Damaged("a branch record");
    outcome.clear();
    for (int32_t j = 0; j < n; ++j) {
      const int32_t code = rec[i + j];
      if (code >= 0) {
        outcome.push_back(counter(code));
      } else {
        if (-1 - code >= n_expr) Damaged("an outcome expression");
        outcome.push_back(PyList_GET_ITEM(expr_values.ptr(), -1 - code));
      }
    }
    i += n;
    // The missed outcomes' descriptions (branches.BranchRecord.missed_parts): one per kind or None, and what to
    // say instead when no outcome ran (or None).
    py::tuple said = py::reinterpret_borrow<py::tuple>(PyList_GET_ITEM(missed.ptr(), r));
    if (said.size() != 2) Damaged("a record's descriptions");
    py::handle parts = said[0], none_ran = said[1];
    if (!PyTuple_Check(parts.ptr()) || PyTuple_GET_SIZE(parts.ptr()) != n) Damaged("a record's descriptions");
    Py_ssize_t covered = 0;
    bool all_zero = true;
    for (PyObject* h : outcome) {
      if (Compare(h, zero.ptr(), Py_GT)) ++covered;
      if (!Compare(h, zero.ptr(), Py_EQ)) all_zero = false;
    }
    py::list missed_here;
    if (!none_ran.is_none() && all_zero) {
      missed_here = Steal(PySequence_List(none_ran.ptr()));
    } else {
      for (int32_t j = 0; j < n; ++j) {
        PyObject* text = PyTuple_GET_ITEM(parts.ptr(), j);
        if (text != Py_None && Compare(outcome[j], zero.ptr(), Py_EQ)) missed_here.append(text);
      }
    }
    py::object py_offset = Steal(PyLong_FromLong(offset)), py_line, entry;
    auto join = [&](size_t owner, bool condition) {
      const uint64_t key = (static_cast<uint64_t>(owner) << 32) | static_cast<uint32_t>(line);
      auto [it, added] = where.emplace(key, gathered.size());
      if (added) {
        if (!py_line) py_line = number(line);
        Lines b;
        b.owner = owner;
        b.line = py_line;
        gathered.push_back(std::move(b));
      }
      Lines& b = gathered[it->second];
      b.covered += covered;
      b.total += n;
      for (py::handle m : missed_here) b.missed.append(m);
      if (condition)
        b.conditions.append(
            py::make_tuple(py_offset, is_switch ? switch_ : jump, covered, static_cast<Py_ssize_t>(n)));
      if (!entry) {  // (one (offset, hits) for the file's line and the method's: nothing changes them)
        py::list hits_of = Steal(PyList_New(n));
        for (int32_t j = 0; j < n; ++j) {
          Py_INCREF(outcome[j]);
          PyList_SET_ITEM(hits_of.ptr(), j, outcome[j]);
        }
        entry = py::make_tuple(py_offset, hits_of);
      }
      b.outcome_hits.append(entry);
    };
    if (file >= 0) {
      if (static_cast<size_t>(file) >= n_files) Damaged("a record's file");
      if (model) join(static_cast<size_t>(file), false);
    }
    if (ci >= 0) {
      if (static_cast<size_t>(ci) >= method_base.size() || mi < 0 ||
          static_cast<size_t>(mi) >= method_count[ci])
        Damaged("a record's method");
      const size_t m = method_base[ci] + mi;
      if (methods) join(n_files + m, true);
      if (n > 0) decisions[m] += n - 1;
    }
  }
  if (r != n_missed) Damaged("records and descriptions differ in number");

  py::list file_branches, method_branches;
  std::vector<py::object> owners;  // owner -> its dict
  owners.reserve(n_files + n_methods);
  for (size_t f = 0; f < n_files; ++f) {
    owners.push_back(py::dict());
    file_branches.append(owners.back());
  }
  for (size_t c = 0; c < method_base.size(); ++c) {
    py::list of_class;
    for (size_t m = 0; m < method_count[c]; ++m) {
      owners.push_back(py::dict());
      of_class.append(owners.back());
    }
    method_branches.append(of_class);
  }
  for (Lines& b : gathered) {
    py::object made = branch_type(b.covered, b.total, b.missed, b.conditions, b.outcome_hits);
    if (PyDict_SetItem(owners[b.owner].ptr(), b.line.ptr(), made.ptr()) < 0) throw py::error_already_set();
  }
  // Per class, as analysis._unmerged_methods counts a class's methods: those with lines, those of them with a line
  // that ran, and their cyclomatic complexity (1 each, plus each branch instruction's outcomes but the first).
  py::list counted;
  for (size_t c = 0; c < method_base.size(); ++c) {
    Py_ssize_t with_lines = 0, covered = 0, complexity = 0;
    for (size_t m = method_base[c]; m < method_base[c] + method_count[c]; ++m) {
      if (!measured[m]) continue;
      ++with_lines;
      covered += ran[m];
      complexity += 1 + decisions[m];
    }
    counted.append(py::make_tuple(with_lines, covered, complexity));
  }
  if (!model) return py::make_tuple(method_lines, method_branches);
  return py::make_tuple(file_lines, file_branches, class_lines, methods ? py::object(method_lines) : py::none(),
                        methods ? py::object(method_branches) : py::none(), counted);
}

py::tuple ApplyPlan(py::list files, py::list classes, py::bytes records, py::list missed, py::list hits,
                    py::list expr_values, py::bytes point_sites, py::object branch_type, bool methods) {
  return Apply(files, classes, records, missed, hits, expr_values, point_sites, branch_type, true, methods);
}

py::tuple ApplyMethods(py::list files, py::list classes, py::bytes records, py::list missed, py::list hits,
                       py::list expr_values, py::bytes point_sites, py::object branch_type) {
  return Apply(files, classes, records, missed, hits, expr_values, point_sites, branch_type, false, true);
}

}  // namespace

void RegisterApply(py::module_& m) {
  m.def("apply_plan", &ApplyPlan, py::arg("files"), py::arg("classes"), py::arg("records"), py::arg("missed"),
        py::arg("hits"), py::arg("expr_values"), py::arg("point_sites"), py::arg("branch_type"),
        py::arg("methods") = true,
        "A packed module plan applied to hit counts (packed_plan.apply): (file lines, file branches, class lines, "
        "method lines, method branches, per class (methods with lines, of them run, their complexity)); "
        "without `methods`, the methods' lines and branches are None (apply_methods makes them).");
  m.def("apply_methods", &ApplyMethods, py::arg("files"), py::arg("classes"), py::arg("records"), py::arg("missed"),
        py::arg("hits"), py::arg("expr_values"), py::arg("point_sites"), py::arg("branch_type"),
        "The methods' part of apply_plan: (method lines, method branches), per class.");
}
