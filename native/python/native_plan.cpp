#include "native_plan.h"
#include "py_objects.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using dotcov_py::Item;

// An int's value. Only ints: PyLong_AsLongLong would call another object's __index__, Python code that could
// change the lists read here.
long long Long(PyObject* value) {
  if (!PyLong_Check(value)) throw py::type_error("not an int");
  return PyLong_AsLongLong(value);
}

void CheckSequence(const py::handle& seq, const char* what) {
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr()))
    throw py::type_error(std::string(what) + ": list or tuple");
}

int32_t Int32(PyObject* value) {
  long long v = Long(value);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (v < INT32_MIN || v > INT32_MAX) throw py::value_error("value out of the int32 range");
  return static_cast<int32_t>(v);
}

// A new bytes object of n int32 values, filled through `data` (no copy: at scale the fresh memory itself is the
// cost).
py::bytes Int32Bytes(size_t n, int32_t** data) {
  PyObject* b = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n * sizeof(int32_t)));
  if (b == nullptr) throw py::error_already_set();
  *data = reinterpret_cast<int32_t*>(PyBytes_AS_STRING(b));
  return py::reinterpret_steal<py::bytes>(b);
}

// Site i's column c (0: token, 1: IL offset, 2: kind) in the data's site blob: n uint32 per column, one column
// after another (data.ModuleHits.site_blob). (memcpy: bytes objects promise no alignment.)
uint32_t SiteField(const char* blob, size_t n, int column, size_t i) {
  uint32_t v;
  std::memcpy(&v, blob + (static_cast<size_t>(column) * n + i) * sizeof(uint32_t), sizeof v);
  return v;
}

// The plan's per-point columns (plan.make_plan), each as int32 bytes (array("i").tobytes()), in `order`:
// tokens[k], then the five first fields of points[k] (IL offset, start line, start column, end line, end column),
// then the index of the last (token, offset, 0) site, or -1 (what `dict(zip(sites, range(n))).get((token, offset,
// 0), -1)` gives), the sites read from `site_blob` (data.ModuleHits.site_blob: no site tuple made).
py::list PointColumns(const py::handle& points, const py::handle& tokens, const py::handle& order,
                      const py::handle& site_blob) {
  CheckSequence(points, "points");
  CheckSequence(tokens, "tokens");
  // `order`: a list of ints, or int32 values in a buffer (array("i"): no int object per point).
  std::vector<int32_t> order_values;
  bool order_buffer = !PyList_Check(order.ptr()) && !PyTuple_Check(order.ptr());
  if (order_buffer) {
    if (!PyObject_CheckBuffer(order.ptr())) throw py::type_error("order: list, tuple or int32 buffer");
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(order).request();
    if (info.ndim != 1 || info.itemsize != 4 || (info.format != "i" && info.format != "=i" && info.format != "@i") ||
        info.strides[0] != 4)
      throw py::type_error("order: an int32 buffer");
    order_values.resize(static_cast<size_t>(info.shape[0]));
    if (!order_values.empty()) std::memcpy(order_values.data(), info.ptr, order_values.size() * sizeof(int32_t));
  }
  if (!PyBytes_Check(site_blob.ptr())) throw py::type_error("site_blob: bytes");
  const char* blob = PyBytes_AS_STRING(site_blob.ptr());
  auto blob_size = static_cast<size_t>(PyBytes_GET_SIZE(site_blob.ptr()));
  if (blob_size % (3 * sizeof(uint32_t)) != 0) throw py::value_error("site_blob: not three uint32 columns");
  Py_ssize_t n_points = PySequence_Fast_GET_SIZE(points.ptr());
  if (PySequence_Fast_GET_SIZE(tokens.ptr()) != n_points) throw py::value_error("points and tokens differ in length");
  auto n = order_buffer ? order_values.size() : static_cast<size_t>(PySequence_Fast_GET_SIZE(order.ptr()));
  size_t n_sites = blob_size / (3 * sizeof(uint32_t));
  if (n_sites > INT32_MAX) throw py::value_error("too many sites");
  py::list out;
  int32_t* col[7];
  for (int32_t*& c : col) out.append(Int32Bytes(n, &c));
  for (size_t i = 0; i < n; ++i) {
    long long k;
    if (order_buffer) {
      k = order_values[i];
    } else {
      k = Long(Item(order.ptr(), static_cast<Py_ssize_t>(i)));
      if (k == -1 && PyErr_Occurred()) throw py::error_already_set();
    }
    if (k < 0 || k >= n_points) throw py::value_error("order: not a point");
    PyObject* p = Item(points.ptr(), static_cast<Py_ssize_t>(k));
    if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) < 5) throw py::type_error("a point is a tuple");
    col[0][i] = Int32(Item(tokens.ptr(), static_cast<Py_ssize_t>(k)));
    for (Py_ssize_t f = 0; f < 5; ++f) col[f + 1][i] = Int32(PyTuple_GET_ITEM(p, f));
  }
  // An open-addressing table of (key, site index) of the (token, offset, 0) sites, the last one winning, at
  // most half full: a std::unordered_map's node per site cost more than everything else here.
  size_t n_keys = 0;
  for (size_t i = 0; i < n_sites; ++i) n_keys += SiteField(blob, n_sites, 2, i) == 0;
  size_t capacity = 16;
  int bits = 4;
  while (capacity < n_keys * 2) capacity <<= 1, ++bits;
  const uint64_t kEmpty = UINT64_MAX;  // the key of (2**32-1, 2**32-1), which no point (int32) can ask for
  std::vector<uint64_t> keys(capacity, kEmpty);
  std::vector<int32_t> values(capacity, -1);
  auto slot = [&](uint64_t key) {
    auto h = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - bits));  // (Fibonacci hashing)
    while (keys[h] != kEmpty && keys[h] != key) h = (h + 1) & (capacity - 1);
    return h;
  };
  for (size_t i = 0; i < n_sites; ++i) {
    if (SiteField(blob, n_sites, 2, i) != 0) continue;
    uint64_t key = static_cast<uint64_t>(SiteField(blob, n_sites, 0, i)) << 32 | SiteField(blob, n_sites, 1, i);
    if (key == kEmpty) continue;
    size_t h = slot(key);
    keys[h] = key;
    values[h] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < n; ++i) {
    int32_t t = col[0][i], o = col[1][i];  // (a key only when both are >= 0)
    col[6][i] = t < 0 || o < 0 ? -1
                               : values[slot(static_cast<uint64_t>(static_cast<uint32_t>(t)) << 32 |
                                             static_cast<uint32_t>(o))];
  }
  return out;
}

// An int's value as int64, or a TypeError / OverflowError (the caller falls back to Python).
int64_t Int64(PyObject* value) {
  long long v = Long(value);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// Continuation lines a file's multi-line points may ask about, in all (more: a damaged PDB's span of up to 2^29
// lines, refused; make_plan reports the file not measured).
constexpr int64_t kMaxContinuationLines = 1 << 24;

// (line, column) positions, compared as the source reads.
using Position = std::pair<int64_t, int64_t>;

// A method's points in one file, from its first (line, column) to its last.
struct Extent {
  Position first, last;
  int64_t token;
};

// One file's line plan (lines.deciding_lines on the file's points, then each line's class and method; in Python:
// tests/oracles/line_plan.py). `runs`: the file's points as (first point id, count, owners) in the order read, a run
// being points[first:first + count], `owners` the refs (ints) of the class and method they count for; `free`: the
// lines without code (`line in free`, asked only about continuation lines); `tokens`: each point's method (by
// point id, as `points`).
// Returns (file lines, each line's first point id as int32 bytes, {position: point ids} of lines of several points,
// {ref: its lines as (first, end) positions when they are file_lines[first:end], else the list}).
py::tuple LinePlan(const py::handle& points, const py::handle& runs, const py::handle& free,
                   const py::handle& tokens) {
  CheckSequence(points, "points");
  CheckSequence(runs, "runs");
  CheckSequence(tokens, "tokens");
  Py_ssize_t n_points = PySequence_Fast_GET_SIZE(points.ptr());
  if (PySequence_Fast_GET_SIZE(tokens.ptr()) != n_points) throw py::value_error("points and tokens differ in length");
  std::vector<int64_t> starts, ends, start_columns, end_columns, methods;
  std::vector<int32_t> ids;
  std::vector<PyObject*> owner_of;  // (borrowed: runs holds them)
  for (Py_ssize_t r = 0; r < PySequence_Fast_GET_SIZE(runs.ptr()); ++r) {
    PyObject* run = Item(runs.ptr(), r);
    if (!PyTuple_Check(run) || PyTuple_GET_SIZE(run) != 3) throw py::type_error("a run is (first, count, owners)");
    int64_t first = Int64(PyTuple_GET_ITEM(run, 0)), count = Int64(PyTuple_GET_ITEM(run, 1));
    PyObject* o = PyTuple_GET_ITEM(run, 2);
    if (!PyTuple_Check(o)) throw py::type_error("owners: a tuple of refs");
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i) Int64(PyTuple_GET_ITEM(o, i));
    if (first < 0 || count < 0 || first > n_points || count > n_points - first || first + count > INT32_MAX)
      throw py::value_error("a run of points that are not there");
    for (int64_t id = first; id < first + count; ++id) {
      PyObject* p = Item(points.ptr(), static_cast<Py_ssize_t>(id));
      if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) < 5) throw py::type_error("a point is a tuple");
      starts.push_back(Int64(PyTuple_GET_ITEM(p, 1)));
      start_columns.push_back(Int64(PyTuple_GET_ITEM(p, 2)));
      ends.push_back(Int64(PyTuple_GET_ITEM(p, 3)));
      end_columns.push_back(Int64(PyTuple_GET_ITEM(p, 4)));
      methods.push_back(Int64(Item(tokens.ptr(), static_cast<Py_ssize_t>(id))));
      ids.push_back(static_cast<int32_t>(id));
      owner_of.push_back(o);
    }
  }
  if (ids.size() > static_cast<size_t>(INT32_MAX)) throw py::value_error("too many points");
  auto n = static_cast<Py_ssize_t>(ids.size());
  // Each start line's points in order (a group per line, in the order lines first start a point; `next` chains
  // a group's further points).
  std::unordered_map<int64_t, int32_t> group_of;
  group_of.reserve(static_cast<size_t>(n) * 2);
  std::vector<int64_t> group_line;
  std::vector<int32_t> group_head, group_tail, next(n, -1);
  for (Py_ssize_t k = 0; k < n; ++k) {
    auto [it, added] = group_of.try_emplace(starts[k], static_cast<int32_t>(group_line.size()));
    if (added) {
      group_line.push_back(starts[k]);
      group_head.push_back(static_cast<int32_t>(k));
      group_tail.push_back(static_cast<int32_t>(k));
    } else {
      next[group_tail[it->second]] = static_cast<int32_t>(k);
      group_tail[it->second] = static_cast<int32_t>(k);
    }
  }
  size_t n_start_groups = group_line.size();
  // Functions written inside a point (lines.functions_inside): each method's extent, by first position.
  std::vector<Extent> extents;
  {
    std::unordered_map<int64_t, size_t> extent_of;
    for (Py_ssize_t k = 0; k < n; ++k) {
      Position a{starts[k], start_columns[k]}, b{ends[k], end_columns[k]};
      auto [it, added] = extent_of.try_emplace(methods[k], extents.size());
      if (added) {
        extents.push_back({a, b, methods[k]});
      } else {
        Extent& e = extents[it->second];
        e.first = std::min(e.first, a);
        e.last = std::max(e.last, b);
      }
    }
    if (extents.size() < 2) extents.clear();
    std::sort(extents.begin(), extents.end(), [](const Extent& x, const Extent& y) { return x.first < y.first; });
  }
  // A function's first line inside the point starting at `a` (lines.functions_inside): its first point's, or the
  // line after its block body opens (free.body_opening: Release has no point on a lambda's `{`) when no point
  // starts in between.
  std::unordered_map<int64_t, bool> is_free;
  auto code_free = [&](int64_t line) {
    auto known = is_free.find(line);
    if (known != is_free.end()) return known->second;  // (the test is pure: asked once per line)
    py::int_ value(static_cast<long long>(line));
    int c = PySequence_Contains(free.ptr(), value.ptr());
    if (c < 0) throw py::error_already_set();
    return is_free[line] = c == 1;
  };
  py::object body_opening;
  if (PyObject_HasAttrString(free.ptr(), "body_opening")) body_opening = free.attr("body_opening");
  std::vector<Position> positions;  // every point's start, in order (made when first needed)
  auto first_line = [&](const Position& a, const Position& first) {
    if (!body_opening) return first.first;
    // Asked (the source lexed) only when a line after the last point start before the function holds code.
    bool code = false;
    for (int64_t line = first.first - 1; !code && line > a.first && !group_of.count(line); --line)
      code = !code_free(line);
    if (!code) return first.first;
    py::object o = body_opening(a.first, a.second, first.first, first.second);
    if (o.is_none()) return first.first;
    auto t = o.cast<py::tuple>();
    Position at{t[0].cast<int64_t>(), t[1].cast<int64_t>()};
    if (positions.empty()) {
      positions.reserve(static_cast<size_t>(n));
      for (Py_ssize_t k = 0; k < n; ++k) positions.emplace_back(starts[k], start_columns[k]);
      std::sort(positions.begin(), positions.end());
    }
    auto after = std::upper_bound(positions.begin(), positions.end(), at);
    if (after != positions.end() && *after < first) return first.first;
    return std::min(first.first, at.first + 1);
  };
  std::vector<std::pair<int64_t, int64_t>> owned_lines;  // (the current point's: first and last lines, merged)
  // Continuation lines (lines.deciding_lines): the points starting on the latest line that span it.
  std::vector<std::vector<int32_t>> inner_points;  // per continuation line, in the order first set
  std::vector<int64_t> inner_key;
  std::unordered_map<int64_t, int32_t> inner_of;
  int64_t asked = 0;
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (!(starts[k] < ends[k])) continue;
    int64_t key = starts[k];
    // (the span in unsigned arithmetic: no overflow between int64's ends; key < end, so it is the true span)
    uint64_t span = static_cast<uint64_t>(ends[k]) - static_cast<uint64_t>(key);
    if (span > static_cast<uint64_t>(kMaxContinuationLines) ||
        (asked += static_cast<int64_t>(span)) > kMaxContinuationLines)
      throw py::value_error("too many continuation lines");
    // The lines of functions written inside this point: it never decides them.
    owned_lines.clear();
    Position a{key, start_columns[k]}, b{ends[k], end_columns[k]};
    auto from = std::lower_bound(extents.begin(), extents.end(), a,
                                 [](const Extent& e, const Position& p) { return e.first < p; });
    for (auto e = from; e != extents.end() && e->first <= b; ++e)
      if (e->token != methods[k] && e->last <= b && !(e->first == a && e->last == b))
        owned_lines.emplace_back(first_line(a, e->first), e->last.first);
    std::sort(owned_lines.begin(), owned_lines.end());
    size_t next_owned = 0;
    int64_t owned_until = INT64_MIN;  // (the last line of the owned ranges begun so far)
    for (int64_t d = 1; d <= static_cast<int64_t>(span); ++d) {
      int64_t line = key + d;
      while (next_owned < owned_lines.size() && owned_lines[next_owned].first <= line)
        owned_until = std::max(owned_until, owned_lines[next_owned++].second);
      if (line <= owned_until) continue;
      if (group_of.count(line)) continue;
      if (code_free(line)) continue;
      auto [it, added] = inner_of.try_emplace(line, static_cast<int32_t>(inner_key.size()));
      if (added) {
        inner_key.push_back(key);
        inner_points.push_back({static_cast<int32_t>(k)});
        group_line.push_back(line);
      } else if (key > inner_key[it->second]) {
        inner_key[it->second] = key;
        inner_points[it->second] = {static_cast<int32_t>(k)};
      } else if (key == inner_key[it->second]) {
        inner_points[it->second].push_back(static_cast<int32_t>(k));
      }
    }
  }
  size_t n_lines = group_line.size();
  std::vector<int32_t> members;  // (the current line's points)
  auto members_of = [&](size_t pos) {
    members.clear();
    if (pos < n_start_groups) {
      for (int32_t k = group_head[pos]; k >= 0; k = next[k]) members.push_back(k);
    } else {
      members = inner_points[pos - n_start_groups];
    }
  };
  py::list file_lines(n_lines);
  int32_t* first;
  py::bytes first_bytes = Int32Bytes(n_lines, &first);
  py::dict multi;
  struct Owned {
    size_t first;
    std::vector<int64_t> lines;
  };
  std::vector<Owned> owned;
  std::vector<PyObject*> owned_ref;  // (borrowed: runs holds them)
  std::unordered_map<int64_t, int32_t> owned_of;
  for (size_t pos = 0; pos < n_lines; ++pos) {
    int64_t line = group_line[pos];
    members_of(pos);
    PyObject* value = PyLong_FromLongLong(line);
    if (value == nullptr) throw py::error_already_set();
    PyList_SET_ITEM(file_lines.ptr(), static_cast<Py_ssize_t>(pos), value);
    first[pos] = ids[members[0]];
    if (members.size() > 1) {
      py::list of(members.size());
      for (size_t m = 0; m < members.size(); ++m) {
        PyObject* id = PyLong_FromLong(ids[members[m]]);
        if (id == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(of.ptr(), static_cast<Py_ssize_t>(m), id);
      }
      multi[py::int_(pos)] = of;
    }
    // The line joins each of its points' class and method (once each; a new one's first position is here).
    for (int32_t k : members) {
      PyObject* o = owner_of[k];
      for (Py_ssize_t r = 0; r < PyTuple_GET_SIZE(o); ++r) {
        PyObject* ref = PyTuple_GET_ITEM(o, r);
        auto [it, added] = owned_of.try_emplace(Int64(ref), static_cast<int32_t>(owned.size()));
        if (added) {
          owned.push_back({pos, {}});
          owned_ref.push_back(ref);
        }
        std::vector<int64_t>& lines = owned[it->second].lines;
        if (lines.empty() || lines.back() != line) lines.push_back(line);  // (file lines are distinct)
      }
    }
  }
  py::dict specs;
  for (size_t i = 0; i < owned.size(); ++i) {
    const Owned& o = owned[i];
    size_t end = o.first + o.lines.size();
    bool run = end <= n_lines;
    for (size_t j = 0; run && j < o.lines.size(); ++j) run = group_line[o.first + j] == o.lines[j];
    py::object spec;
    if (run) {
      spec = py::make_tuple(o.first, end);
    } else {
      py::list lines(o.lines.size());
      for (size_t j = 0; j < o.lines.size(); ++j) {
        PyObject* value = PyLong_FromLongLong(o.lines[j]);
        if (value == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(lines.ptr(), static_cast<Py_ssize_t>(j), value);
      }
      spec = lines;
    }
    if (PyDict_SetItem(specs.ptr(), owned_ref[i], spec.ptr()) != 0) throw py::error_already_set();
  }
  return py::make_tuple(file_lines, first_bytes, multi, specs);
}

}  // namespace

void RegisterPlan(py::module_& m) {
  m.def("point_columns", &PointColumns, py::arg("points"), py::arg("tokens"), py::arg("order"), py::arg("site_blob"),
        "make_plan's per-point columns in `order` (point ids: a list, or an int32 buffer) as int32 bytes: "
        "tokens, the points' offset, start line and "
        "column, end line and column, and each point's counter among the sites of `site_blob` (uint32 tokens, "
        "offsets, kinds, one column after another; -1: none). Raises ValueError for a value outside int32 or a "
        "blob not of three equal uint32 columns.");
  m.def("line_plan", &LinePlan, py::arg("points"), py::arg("runs"), py::arg("free"), py::arg("tokens"),
        "plan.file_line_plan of one file (`tokens`: each point's method): (file lines, each line's first point id as int32 bytes, "
        "{position: point ids} of lines of several points, {owner ref: its lines as (first, end) or a list}). "
        "TypeError, ValueError or OverflowError for input it does not take.");
}
