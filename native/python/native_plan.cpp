#include "native_plan.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

// A (method token, IL offset) pair as one key; both are 32-bit unsigned in the data file.
uint64_t Key(PyObject* token, PyObject* offset) {
  long long t = PyLong_AsLongLong(token);
  long long o = PyLong_AsLongLong(offset);
  if ((t == -1 || o == -1) && PyErr_Occurred()) throw py::error_already_set();
  if (t < 0 || o < 0 || t > UINT32_MAX || o > UINT32_MAX) throw py::value_error("token or offset out of range");
  return static_cast<uint64_t>(t) << 32 | static_cast<uint64_t>(o);
}

PyObject* Item(PyObject* seq, Py_ssize_t i) {
  return PyList_Check(seq) ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
}

void CheckSequence(const py::handle& seq, const char* what) {
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) throw py::type_error(std::string(what) + ": list or tuple");
}

int32_t Int32(PyObject* value) {
  long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (v < INT32_MIN || v > INT32_MAX) throw py::value_error("value out of the int32 range");
  return static_cast<int32_t>(v);
}

py::bytes AsBytes(const std::vector<int32_t>& column) {
  return py::bytes(reinterpret_cast<const char*>(column.data()), column.size() * sizeof(int32_t));
}

// The plan's per-point columns (plan.make_plan), each as int32 bytes (array("i").tobytes()), in `order`:
// tokens[k], then the five first fields of points[k] (IL offset, start line, start column, end line, end column),
// then the index in `sites` of the last (token, offset, 0) site, or -1 (what
// `dict(zip(sites, range(n))).get((token, offset, 0), -1)` gives).
py::list PointColumns(const py::handle& points, const py::handle& tokens, const py::handle& order,
                      const py::handle& sites) {
  CheckSequence(points, "points");
  CheckSequence(tokens, "tokens");
  CheckSequence(order, "order");
  CheckSequence(sites, "sites");
  Py_ssize_t n_points = PySequence_Fast_GET_SIZE(points.ptr());
  if (PySequence_Fast_GET_SIZE(tokens.ptr()) != n_points) throw py::value_error("points and tokens differ in length");
  Py_ssize_t n = PySequence_Fast_GET_SIZE(order.ptr());
  Py_ssize_t n_sites = PySequence_Fast_GET_SIZE(sites.ptr());
  if (n_sites > INT32_MAX) throw py::value_error("too many sites");
  std::vector<std::vector<int32_t>> columns(7, std::vector<int32_t>(static_cast<size_t>(n)));
  for (Py_ssize_t i = 0; i < n; ++i) {
    long long k = PyLong_AsLongLong(Item(order.ptr(), i));
    if (k == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (k < 0 || k >= n_points) throw py::value_error("order: not a point");
    PyObject* p = Item(points.ptr(), static_cast<Py_ssize_t>(k));
    if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) < 5) throw py::type_error("a point is a tuple");
    auto at = static_cast<size_t>(i);
    columns[0][at] = Int32(Item(tokens.ptr(), static_cast<Py_ssize_t>(k)));
    for (Py_ssize_t f = 0; f < 5; ++f) columns[static_cast<size_t>(f + 1)][at] = Int32(PyTuple_GET_ITEM(p, f));
  }
  std::unordered_map<uint64_t, int32_t> index;
  index.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n_sites; ++i) {
    PyObject* site = Item(sites.ptr(), i);
    if (!PyTuple_Check(site) || PyTuple_GET_SIZE(site) != 3) throw py::type_error("a site is a 3-tuple");
    long long kind = PyLong_AsLongLong(PyTuple_GET_ITEM(site, 2));
    if (kind == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (kind != 0) continue;
    index[Key(PyTuple_GET_ITEM(site, 0), PyTuple_GET_ITEM(site, 1))] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    // (token and offset are int32 here: both >= 0 for a key)
    int32_t t = columns[0][i], o = columns[1][i];
    auto it = t < 0 || o < 0 ? index.end()
                             : index.find(static_cast<uint64_t>(static_cast<uint32_t>(t)) << 32 | static_cast<uint32_t>(o));
    columns[6][i] = it == index.end() ? -1 : it->second;
  }
  py::list out;
  for (const auto& column : columns) out.append(AsBytes(column));
  return out;
}

}  // namespace

void RegisterPlan(py::module_& m) {
  m.def("point_columns", &PointColumns, py::arg("points"), py::arg("tokens"), py::arg("order"), py::arg("sites"),
        "make_plan's per-point columns in `order` as int32 bytes: tokens, the points' offset, start line and "
        "column, end line and column, and each point's counter in `sites` (-1: none). Raises ValueError for a "
        "value outside int32 (or a site's token or offset outside 0..2**32-1).");
}
