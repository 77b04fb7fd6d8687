#include "native_plan.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// An int's value. Only ints: PyLong_AsLongLong would call another object's __index__, Python code that could
// change the lists read here.
long long Long(PyObject* value) {
  if (!PyLong_Check(value)) throw py::type_error("not an int");
  return PyLong_AsLongLong(value);
}

PyObject* Item(PyObject* seq, Py_ssize_t i) {
  return PyList_Check(seq) ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
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

// A new bytes object of n int32 values, filled through `data` (no copy: at a million points the fresh memory
// itself is the cost).
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
  CheckSequence(order, "order");
  if (!PyBytes_Check(site_blob.ptr())) throw py::type_error("site_blob: bytes");
  const char* blob = PyBytes_AS_STRING(site_blob.ptr());
  auto blob_size = static_cast<size_t>(PyBytes_GET_SIZE(site_blob.ptr()));
  if (blob_size % (3 * sizeof(uint32_t)) != 0) throw py::value_error("site_blob: not three uint32 columns");
  Py_ssize_t n_points = PySequence_Fast_GET_SIZE(points.ptr());
  if (PySequence_Fast_GET_SIZE(tokens.ptr()) != n_points) throw py::value_error("points and tokens differ in length");
  auto n = static_cast<size_t>(PySequence_Fast_GET_SIZE(order.ptr()));
  size_t n_sites = blob_size / (3 * sizeof(uint32_t));
  if (n_sites > INT32_MAX) throw py::value_error("too many sites");
  py::list out;
  int32_t* col[7];
  for (int32_t*& c : col) out.append(Int32Bytes(n, &c));
  for (size_t i = 0; i < n; ++i) {
    long long k = Long(Item(order.ptr(), static_cast<Py_ssize_t>(i)));
    if (k == -1 && PyErr_Occurred()) throw py::error_already_set();
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

}  // namespace

void RegisterPlan(py::module_& m) {
  m.def("point_columns", &PointColumns, py::arg("points"), py::arg("tokens"), py::arg("order"), py::arg("site_blob"),
        "make_plan's per-point columns in `order` as int32 bytes: tokens, the points' offset, start line and "
        "column, end line and column, and each point's counter among the sites of `site_blob` (uint32 tokens, "
        "offsets, kinds, one column after another; -1: none). Raises ValueError for a value outside int32 or a "
        "blob not of three equal uint32 columns.");
}
