// plan.make_plan's per-method and per-record loops (tests/oracles/make_plan.py states them in Python): which class
// and method each sequence point counts for, the files' excluded and not-measured lines, the classes' order and the
// points' renumbering, and where each branch record lands. Python objects are read and made with the GIL held
// throughout (every value here is one).
#include "native_methods.h"
#include "py_objects.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using dotcov_py::Item;
using dotcov_py::Steal;

constexpr int64_t kMethodDef = 0x06000000;
constexpr int64_t kRidMask = 0x00FFFFFF;

// An int's value. Only ints: another object's __index__ could run Python code that changes the tables read here.
int64_t Int(PyObject* value) {
  if (!PyLong_Check(value)) throw py::type_error("not an int");
  long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

py::object Borrow(PyObject* p) { return py::reinterpret_borrow<py::object>(p); }

Py_ssize_t SequenceSize(PyObject* seq, const char* what) {
  if (!PyList_Check(seq) && !PyTuple_Check(seq)) throw py::type_error(std::string(what) + ": a list or tuple");
  return PySequence_Fast_GET_SIZE(seq);
}

// seq[i] as Python indexes it (a negative i counts from the end), or IndexError.
PyObject* At(PyObject* seq, int64_t i, const char* what) {
  Py_ssize_t n = SequenceSize(seq, what);
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw py::index_error(std::string(what) + " index out of range");
  return Item(seq, static_cast<Py_ssize_t>(i));
}

// d.get(key) (borrowed, or nullptr), raising what the lookup raises.
PyObject* Get(PyObject* d, PyObject* key) {
  PyObject* v = PyDict_GetItemWithError(d, key);
  if (v == nullptr && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

PyObject* GetInt(PyObject* d, int64_t key) {
  py::object k = Steal(PyLong_FromLongLong(key));
  return Get(d, k.ptr());
}

bool Contains(PyObject* set, PyObject* key) {
  int c = PySequence_Contains(set, key);
  if (c < 0) throw py::error_already_set();
  return c == 1;
}

bool True(PyObject* v) {
  int t = PyObject_IsTrue(v);
  if (t < 0) throw py::error_already_set();
  return t == 1;
}

// A sequence point: the PDB's (IL offset, start line, start column, end line, end column, document).
PyObject* PointField(PyObject* p, Py_ssize_t i) {
  if (!PyTuple_Check(p)) throw py::type_error("a point is a tuple");
  if (PyTuple_GET_SIZE(p) < 6) throw py::index_error("a point is a tuple of six");
  return PyTuple_GET_ITEM(p, i);
}

struct PairHash {
  size_t operator()(const std::pair<int32_t, int64_t>& k) const {
    return std::hash<int64_t>()(k.second * 0x9E3779B97F4A7C15LL + k.first);
  }
};

struct Method {
  int32_t cls, ref;
  py::object name;
  int64_t owner_rid;
  bool generated;
  std::vector<std::pair<int32_t, int32_t>> runs;  // its point ids as (first, count), in the order read
  py::object index;  // (class, method) in the plan
};

struct Class {
  py::object name, path;
  int32_t path_id, ref;
  std::vector<int32_t> methods;
  py::dict by_name;  // a method's name -> its first method of that name
};

// plan.make_plan's methods and points (see _make_plan), then the rows made of them.
class MethodPlan {
 public:
  MethodPlan(const py::dict& sequence_points, const py::dict& kickoff, const py::list& methods,
             const py::list& generated, const py::set& dropped, const py::object& excluded, const py::dict& unmeasured,
             const py::list& doc_paths, const py::object& type_owner) {
    for (auto item : kickoff) kickoff_[Int(item.first.ptr())] = Int(item.second.ptr());
    Py_ssize_t n_docs = PyList_GET_SIZE(doc_paths.ptr()) - 1;
    doc_path_.assign(static_cast<size_t>(n_docs + 1), -1);
    for (Py_ssize_t d = 1; d <= n_docs; ++d) {
      PyObject* path = PyList_GET_ITEM(doc_paths.ptr(), d);
      if (path != Py_None) doc_path_[static_cast<size_t>(d)] = PathId(path);
    }
    doc_paths_ = doc_paths;
    // The user's methods first, then the generated ones (each part by rid).
    std::vector<std::pair<int64_t, PyObject*>> rids;
    for (auto item : sequence_points) rids.emplace_back(Int(item.first.ptr()), item.first.ptr());
    std::sort(rids.begin(), rids.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<int64_t, PyObject*>> order, generated_rids;
    for (const auto& r : rids)
      (Generated(generated.ptr(), Kickoff(r.first)) != Py_None ? generated_rids : order).push_back(r);
    order.insert(order.end(), generated_rids.begin(), generated_rids.end());
    last_path_ = nullptr;  // (PathId's: doc_paths holds the paths while this runs)
    const bool any_unmeasured = PyDict_GET_SIZE(unmeasured.ptr()) != 0;
    std::unordered_map<int64_t, std::pair<int64_t, py::object>> type_names;  // type rid -> (user type, its name)
    for (const auto& [rid, rid_key] : order) {
      PyObject* rid_points = Get(sequence_points.ptr(), rid_key);
      Py_ssize_t n = SequenceSize(rid_points, "a method's points");
      int64_t token = kMethodDef | rid, owner_rid = Kickoff(rid);
      PyObject* m = At(methods.ptr(), owner_rid - 1, "methods");
      if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) != 4) throw py::value_error("a method is a tuple of four");
      PyObject* mname = PyTuple_GET_ITEM(m, 0);
      int64_t type_rid = Int(PyTuple_GET_ITEM(m, 1));
      PyObject* gen = Generated(generated.ptr(), owner_rid);
      bool is_generated = gen != Py_None;
      py::object own_name;  // (a new string per method read, as each regex match in Python makes)
      if (is_generated && True(gen)) {
        if (!PyUnicode_Check(gen)) throw py::type_error("a generated method's name is a str");
        own_name = Steal(PyUnicode_FromKindAndData(PyUnicode_KIND(gen), PyUnicode_DATA(gen), PyUnicode_GET_LENGTH(gen)));
        mname = own_name.ptr();
      }
      auto named = type_names.find(type_rid);
      if (named == type_names.end()) {
        py::tuple t = type_owner(type_rid);
        named = type_names.emplace(type_rid, std::make_pair(Int(t[0].ptr()), py::object(t[1]))).first;
      }
      int64_t user_type = named->second.first;
      PyObject* class_name = named->second.second.ptr();
      if (Contains(dropped.ptr(), rid_key)) continue;  // e.g. a record's copy constructor
      bool is_excluded = Contains(excluded.ptr(), rid_key);
      PyObject* why = nullptr;
      if (any_unmeasured) {
        why = Get(unmeasured.ptr(), rid_key);
        if (why == nullptr || !True(why)) why = GetInt(unmeasured.ptr(), owner_rid);
      }
      py::object why_ref = why ? Borrow(why) : py::object();
      // The usual method: its points at once, in one file.
      bool one_doc = n > 0;
      int64_t doc = 0;
      for (Py_ssize_t i = 0; i < n; ++i) {
        int64_t d = Int(PointField(Item(rid_points, i), 5));
        if (i == 0) doc = d;
        else if (d != doc) one_doc = false;
      }
      if (!is_excluded && why == nullptr && one_doc) {
        int32_t path_id = 0 < doc && doc <= n_docs ? doc_path_[static_cast<size_t>(doc)] : -1;
        if (path_id >= 0) {
          PyObject* path = PyList_GET_ITEM(doc_paths.ptr(), doc);
          File(path_id, path);
          auto [place, mi, found] = Owner(path_id, path, user_type, class_name, is_generated, mname, owner_rid);
          auto first = static_cast<int32_t>(PyList_GET_SIZE(points_.ptr()));
          methods_[mi].runs.emplace_back(first, static_cast<int32_t>(n));
          Append(found, py::make_tuple(first, n, place).ptr());
          py::object tok = Steal(PyLong_FromLongLong(token));
          for (Py_ssize_t i = 0; i < n; ++i) {
            Append(points_.ptr(), Item(rid_points, i));
            Append(tokens_.ptr(), tok.ptr());
          }
        }
        continue;
      }
      int32_t last_path = -1, mi = -1;
      PyObject *fc = nullptr, *found = nullptr;
      py::object place, tok = Steal(PyLong_FromLongLong(token));
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* p = Item(rid_points, i);
        int64_t d = Int(PointField(p, 5));
        if (!(0 < d && d <= n_docs)) continue;
        int32_t path_id = doc_path_[static_cast<size_t>(d)];
        if (path_id < 0) continue;
        PyObject* path = PyList_GET_ITEM(doc_paths.ptr(), d);
        if (path_id != last_path) {
          last_path = path_id, mi = -1;
          fc = File(path_id, path);
        }
        if (is_excluded || why != nullptr) {
          int64_t from = Int(PyTuple_GET_ITEM(p, 1)), to = Int(PyTuple_GET_ITEM(p, 3));
          PyObject* lines = is_excluded ? PyDict_GetItemString(fc, "excluded") : PyDict_GetItemString(fc, "not_measured");
          for (int64_t line = from; line <= to; ++line) {
            py::object l = Steal(PyLong_FromLongLong(line));
            if (is_excluded ? PySet_Add(lines, l.ptr()) != 0 : PyDict_SetDefault(lines, l.ptr(), why) == nullptr)
              throw py::error_already_set();
            if (line == INT64_MAX) break;
          }
          continue;
        }
        if (mi < 0) {
          auto owned = Owner(path_id, path, user_type, class_name, is_generated, mname, owner_rid);
          place = std::get<0>(owned), mi = std::get<1>(owned), found = std::get<2>(owned);
        }
        auto pid = static_cast<int32_t>(PyList_GET_SIZE(points_.ptr()));
        Append(points_.ptr(), p);
        Append(tokens_.ptr(), tok.ptr());
        methods_[mi].runs.emplace_back(pid, 1);
        Append(found, py::make_tuple(pid, 1, place).ptr());
      }
    }
  }

  py::list points() const { return points_; }
  py::list tokens() const { return tokens_; }
  py::dict files() const { return files_; }
  py::dict spans() const { return spans_; }

  // ([owner rid], [name]) of the methods, in the order of `texts` in rows.
  py::tuple new_methods() const {
    py::list rids, names;
    for (const Method& m : methods_) {
      rids.append(m.owner_rid);
      names.append(m.name);
    }
    return py::make_tuple(rids, names);
  }

  // The classes' rows (each with its method rows), in (name, file) order, the points in that order (int32
  // bytes of point ids) and the files' rows with their points renumbered so. `lines`: {ref: lines} from the line
  // plans; `texts`: (signatures, display names, record members) of the methods of new_methods; `refused`: the files whose
  // points could not be planned (their classes dropped); `file_rows`: (path, lines, first point id of each (an
  // int32 array), {position: point ids}, ...).
  py::tuple rows(const py::dict& lines, const py::tuple& texts, const py::set& refused, const py::list& file_rows) {
    // `texts`: Symbols.method_texts' (signatures, display names, record members) lists.
    if (texts.size() != 3) throw py::value_error("texts: three lists");
    PyObject *signatures = PyTuple_GET_ITEM(texts.ptr(), 0), *displays = PyTuple_GET_ITEM(texts.ptr(), 1),
             *records = PyTuple_GET_ITEM(texts.ptr(), 2);
    for (PyObject* l : {signatures, displays, records})
      if (!PyList_Check(l) || PyList_GET_SIZE(l) != static_cast<Py_ssize_t>(methods_.size()))
        throw py::value_error("texts: a list per method");
    lines_ = lines;
    kept_classes_.clear();
    for (size_t c = 0; c < classes_.size(); ++c)
      if (!Contains(refused.ptr(), classes_[c].path.ptr())) kept_classes_.push_back(static_cast<int32_t>(c));
    std::vector<int32_t> ordered = kept_classes_;
    auto less = [&](PyObject* a, PyObject* b) {
      int c = PyObject_RichCompareBool(a, b, Py_LT);
      if (c < 0) throw py::error_already_set();
      return c == 1;
    };
    auto equal = [&](PyObject* a, PyObject* b) {
      int c = PyObject_RichCompareBool(a, b, Py_EQ);
      if (c < 0) throw py::error_already_set();
      return c == 1;
    };
    std::stable_sort(ordered.begin(), ordered.end(), [&](int32_t x, int32_t y) {  // (the tuples' comparison)
      const Class &a = classes_[x], &b = classes_[y];
      if (!equal(a.name.ptr(), b.name.ptr())) return less(a.name.ptr(), b.name.ptr());
      if (!equal(a.path.ptr(), b.path.ptr())) return less(a.path.ptr(), b.path.ptr());
      return false;
    });
    auto lines_of = [&](int32_t ref) {
      py::object key = Steal(PyLong_FromLong(ref));
      PyObject* spec = Get(lines.ptr(), key.ptr());
      return spec ? Borrow(spec) : Steal(PyList_New(0));
    };
    size_t n_points = static_cast<size_t>(PyList_GET_SIZE(points_.ptr()));
    std::vector<int32_t> order, renumber(n_points, 0);
    py::list class_rows;
    for (size_t ci = 0; ci < ordered.size(); ++ci) {
      Class& cc = classes_[ordered[ci]];
      py::list method_rows;
      py::object ci_int = Steal(PyLong_FromSize_t(ci));  // (one object in every index of the class, as in Python)
      for (size_t k = 0; k < cc.methods.size(); ++k) {
        Method& mc = methods_[cc.methods[k]];
        mc.index = py::make_tuple(ci_int, k);
        auto start = static_cast<int32_t>(order.size());
        for (auto [first, count] : mc.runs)
          for (int32_t id = first; id < first + count; ++id) {
            renumber[static_cast<size_t>(id)] = static_cast<int32_t>(order.size());
            order.push_back(id);
          }
        Py_ssize_t t = cc.methods[k];
        // (a generated method, a lambda's or a state machine's, is never a record's member)
        PyObject* record = mc.generated ? Py_False : PyList_GET_ITEM(records, t);
        method_rows.append(py::make_tuple(mc.name, Borrow(PyList_GET_ITEM(signatures, t)), kMethodDef | mc.owner_rid,
                                          lines_of(mc.ref), start, static_cast<int32_t>(order.size()),
                                          Borrow(PyList_GET_ITEM(displays, t)), Borrow(record)));
      }
      class_rows.append(py::make_tuple(cc.name, cc.path, lines_of(cc.ref), method_rows));
    }
    py::bytes order_bytes(reinterpret_cast<const char*>(order.data()), order.size() * sizeof(int32_t));
    auto renumbered = [&](int64_t id) {
      if (id < 0 || static_cast<size_t>(id) >= n_points) throw py::index_error("not a point");
      return renumber[static_cast<size_t>(id)];
    };
    py::list files_out;
    for (auto row_h : file_rows) {
      if (!PyTuple_Check(row_h.ptr()) || PyTuple_GET_SIZE(row_h.ptr()) != 7)
        throw py::value_error("a file row is a tuple of seven");
      py::tuple row = py::reinterpret_borrow<py::tuple>(row_h);
      if (!PyDict_Check(row[3].ptr())) throw py::type_error("multi: a dict");
      py::buffer_info first = py::reinterpret_borrow<py::buffer>(row[2]).request();
      if (first.ndim != 1 || first.itemsize != 4) throw py::type_error("first: an int32 array");
      std::vector<int32_t> gathered(static_cast<size_t>(first.shape[0]));
      for (size_t i = 0; i < gathered.size(); ++i) gathered[i] = renumbered(static_cast<const int32_t*>(first.ptr)[i]);
      py::dict multi;
      for (auto item : py::reinterpret_borrow<py::dict>(row[3])) {
        if (!PyList_Check(item.second.ptr())) throw py::type_error("multi: lists of point ids");
        py::list ids = py::reinterpret_borrow<py::list>(item.second);
        py::list out(ids.size());
        for (size_t i = 0; i < ids.size(); ++i) {
          PyObject* v = PyLong_FromLong(renumbered(Int(PyList_GET_ITEM(ids.ptr(), static_cast<Py_ssize_t>(i)))));
          if (v == nullptr) throw py::error_already_set();
          PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), v);
        }
        multi[item.first] = out;
      }
      files_out.append(py::make_tuple(row[0], row[1],
                                      py::bytes(reinterpret_cast<const char*>(gathered.data()),
                                                gathered.size() * sizeof(int32_t)),
                                      multi, row[4], row[5], row[6]));
    }
    return py::make_tuple(class_rows, order_bytes, files_out);
  }

  // The branch records' rows (plan.make_plan's landing rules): a switch line without a point of its own joins
  // its owner's methods (`fix`), and each record lands on the method of its line whose token is its owner, else
  // the first. `records`: branch_rows' rows, those kept; `file_lines`: {path: its lines} of the line plans;
  // `kept`: {path: its statement lines} of the files kept. Called after rows.
  py::list records(const py::list& records, const py::dict& file_lines, const py::dict& kept) {
    last_path_ = nullptr;
    // Where each record may land: the methods whose lines hold a record's line.
    std::unordered_map<int64_t, std::unordered_set<int64_t>> wanted;  // path id -> lines
    for (auto r : records) {
      if (!PyTuple_Check(r.ptr())) throw py::type_error("a branch record is a tuple");
      if (PyTuple_GET_SIZE(r.ptr()) != 12) throw py::value_error("a branch record is a tuple of twelve");
      wanted[PathId(PyTuple_GET_ITEM(r.ptr(), 2))].insert(Int(PyTuple_GET_ITEM(r.ptr(), 3)));
    }
    std::unordered_map<std::pair<int32_t, int64_t>, std::vector<int32_t>, PairHash> methods_at,
        owners;  // (path, line or token) -> methods
    std::unordered_map<int32_t, std::vector<int64_t>> lines_of;  // path -> its file lines
    for (int32_t c : kept_classes_) {
      const Class& cc = classes_[static_cast<size_t>(c)];
      auto lines_wanted = wanted.find(cc.path_id);
      if (lines_wanted != wanted.end() && !lines_wanted->second.empty()) {
        auto [in_file, added] = lines_of.try_emplace(cc.path_id);
        if (added) {
          PyObject* all = Get(file_lines.ptr(), cc.path.ptr());
          if (all == nullptr) throw py::key_error("a file without a line plan");
          for (Py_ssize_t i = 0, n = SequenceSize(all, "file lines"); i < n; ++i)
            in_file->second.push_back(Int(Item(all, i)));
        }
        const std::vector<int64_t>& all = in_file->second;
        for (int32_t mi : cc.methods) {
          const Method& mc = methods_[static_cast<size_t>(mi)];
          py::object key = Steal(PyLong_FromLong(mc.ref));
          PyObject* spec = Get(lines_.ptr(), key.ptr());
          auto at = [&](int64_t line) {
            if (lines_wanted->second.count(line)) methods_at[{cc.path_id, line}].push_back(mi);
          };
          if (spec == nullptr) {
          } else if (PyTuple_Check(spec)) {  // (file_lines[a:b]: the line plan's a and b are within them)
            if (PyTuple_GET_SIZE(spec) != 2) throw py::value_error("lines: (first, end)");
            auto n = static_cast<int64_t>(all.size());
            int64_t a = Int(PyTuple_GET_ITEM(spec, 0)), b = Int(PyTuple_GET_ITEM(spec, 1));
            if (a < 0 || b < 0) throw py::value_error("lines: (first, end) positions");
            for (int64_t i = a; i < std::min(b, n); ++i) at(all[static_cast<size_t>(i)]);
          } else {
            for (Py_ssize_t i = 0; i < SequenceSize(spec, "lines"); ++i) at(Int(Item(spec, i)));
          }
        }
      }
      for (int32_t mi : cc.methods)
        owners[{cc.path_id, kMethodDef | methods_[static_cast<size_t>(mi)].owner_rid}].push_back(mi);
    }
    std::unordered_map<int32_t, std::unordered_set<int64_t>> kept_lines;  // (made when a switch record asks)
    py::dict seen;  // (equal paths, texts, outcome kinds and notes as one object: marshal stores them once)
    std::unordered_map<PyObject*, PyObject*> same;  // (an object already seen -> its one)
    auto once = [&](PyObject* value) -> py::object {
      if (value == Py_None) return py::none();
      auto known = same.find(value);
      if (known != same.end()) return Borrow(known->second);
      py::object key;
      if (PyDict_CheckExact(value)) {
        py::object items = Steal(PyDict_Items(value));
        key = Steal(PyList_AsTuple(items.ptr()));
      } else if (PyList_CheckExact(value)) {
        key = Steal(PyList_AsTuple(value));
      } else {
        key = Borrow(value);
      }
      py::tuple k = py::make_tuple(Borrow(reinterpret_cast<PyObject*>(Py_TYPE(value))), key);
      PyObject* one = PyDict_SetDefault(seen.ptr(), k.ptr(), value);
      if (one == nullptr) throw py::error_already_set();
      same[value] = one;
      return Borrow(one);
    };
    py::list out;
    for (auto r : records) {
      PyObject* t = r.ptr();
      auto f = [&](int i) { return PyTuple_GET_ITEM(t, i); };
      int64_t token = Int(f(0)), rid = token & kRidMask, owner = kMethodDef | Kickoff(rid);
      PyObject *path = f(2), *codes = f(5), *arms = f(9);
      int32_t path_id = PathId(path);
      int64_t line = Int(f(3));
      py::object fix = py::none();
      if (arms != Py_None) {
        PyObject* lines_kept = Get(kept.ptr(), path);
        if (lines_kept != nullptr) {
          auto [it, added] = kept_lines.try_emplace(path_id);
          if (added)
            for (Py_ssize_t i = 0; i < SequenceSize(lines_kept, "kept lines"); ++i)
              it->second.insert(Int(Item(lines_kept, i)));
          if (!it->second.count(line)) {
            auto o = owners.find({path_id, owner});
            py::list indexes;
            if (o != owners.end()) {
              for (int32_t mi : o->second) indexes.append(methods_[static_cast<size_t>(mi)].index);
              if (!o->second.empty()) it->second.insert(line);
              auto& at = methods_at[{path_id, line}];
              at.insert(at.end(), o->second.begin(), o->second.end());
            }
            fix = indexes;
          }
        }
      }
      py::object at = py::none();
      auto candidates = methods_at.find({path_id, line});
      if (candidates != methods_at.end() && !candidates->second.empty()) {  // (its owner's, else the first)
        int32_t pick = candidates->second[0];
        for (int32_t mi : candidates->second)
          if ((kMethodDef | methods_[static_cast<size_t>(mi)].owner_rid) == owner) {
            pick = mi;
            break;
          }
        at = methods_[static_cast<size_t>(pick)].index;
      }
      bool plain = true;
      for (Py_ssize_t i = 0, n = SequenceSize(codes, "codes"); plain && i < n; ++i) plain = PyLong_CheckExact(Item(codes, i));
      py::tuple row(14);
      PyObject* items[14] = {f(0), f(1), nullptr, f(3), nullptr, codes, plain ? Py_True : Py_False, f(6), f(7),
                             nullptr, arms, nullptr, fix.ptr(), at.ptr()};
      py::object p = once(path), k = once(f(4)), x = once(f(8)), notes = once(f(10));
      items[2] = p.ptr(), items[4] = k.ptr(), items[9] = x.ptr(), items[11] = notes.ptr();
      for (int i = 0; i < 14; ++i) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(row.ptr(), i, items[i]);
      }
      out.append(row);
    }
    return out;
  }

 private:
  int64_t Kickoff(int64_t rid) const {
    auto k = kickoff_.find(rid);
    return k == kickoff_.end() ? rid : k->second;
  }

  // GENERATED_METHOD's group 1 of the method's name (plan.py's `generated`, by rid), or None when not generated.
  static PyObject* Generated(PyObject* generated, int64_t rid) { return At(generated, rid - 1, "generated"); }

  // A path's number, equal paths one number.
  int32_t PathId(PyObject* path) {
    if (path == last_path_) return last_path_id_;  // (a file's records and points come together)
    PyObject* found = Get(path_ids_.ptr(), path);
    if (found == nullptr) {
      py::object id = Steal(PyLong_FromSsize_t(PyDict_GET_SIZE(path_ids_.ptr())));
      if (PyDict_SetItem(path_ids_.ptr(), path, id.ptr()) != 0) throw py::error_already_set();
      found = id.ptr();
    }
    last_path_ = path;  // (valid while the caller's tables hold it: each call that reads paths resets it)
    last_path_id_ = static_cast<int32_t>(PyLong_AsLong(found));
    return last_path_id_;
  }

  // files[path] (made when first asked: the order of the model's files).
  PyObject* File(int32_t path_id, PyObject* path) {
    if (static_cast<size_t>(path_id) >= file_of_.size()) file_of_.resize(static_cast<size_t>(path_id) + 1);
    if (!file_of_[static_cast<size_t>(path_id)]) {
      py::dict fc;
      fc["excluded"] = py::set();
      fc["not_measured"] = py::dict();
      if (PyDict_SetDefault(files_.ptr(), path, fc.ptr()) == nullptr) throw py::error_already_set();
      file_of_[static_cast<size_t>(path_id)] = Borrow(Get(files_.ptr(), path));
    }
    return file_of_[static_cast<size_t>(path_id)].ptr();
  }

  static void Append(PyObject* list, PyObject* v) {
    if (PyList_Append(list, v) != 0) throw py::error_already_set();
  }

  // The class and method a method's points in `path` count for (their refs), the method, and the file's runs.
  std::tuple<py::tuple, int32_t, PyObject*> Owner(int32_t path_id, PyObject* path, int64_t user_type,
                                                  PyObject* class_name, bool generated, PyObject* mname,
                                                  int64_t owner_rid) {
    auto [c, new_class] = class_of_.try_emplace({user_type, path_id}, static_cast<int32_t>(classes_.size()));
    if (new_class) {
      classes_.push_back({Borrow(class_name), Borrow(path), path_id, NextRef(), {}, py::dict()});
    }
    int32_t ci = c->second;
    int32_t mi = -1;
    if (generated) {
      PyObject* found = Get(classes_[ci].by_name.ptr(), mname);
      if (found != nullptr) mi = static_cast<int32_t>(PyLong_AsLong(found));
    } else {
      auto m = method_of_.find({user_type, path_id, owner_rid});
      if (m != method_of_.end()) mi = m->second;
    }
    if (mi < 0) {
      mi = static_cast<int32_t>(methods_.size());
      methods_.push_back({ci, NextRef(), Borrow(mname), owner_rid, generated, {}, py::none()});
      classes_[ci].methods.push_back(mi);
      py::object index = Steal(PyLong_FromLong(mi));
      if (PyDict_SetDefault(classes_[ci].by_name.ptr(), mname, index.ptr()) == nullptr) throw py::error_already_set();
      if (!generated) method_of_[{user_type, path_id, owner_rid}] = mi;
    }
    PyObject* found = Get(spans_.ptr(), path);
    if (found == nullptr) {
      py::list runs;
      if (PyDict_SetItem(spans_.ptr(), path, runs.ptr()) != 0) throw py::error_already_set();
      found = runs.ptr();
    }
    return {py::make_tuple(classes_[ci].ref, methods_[mi].ref), mi, found};
  }

  int32_t NextRef() { return next_ref_++; }

  std::unordered_map<int64_t, int64_t> kickoff_;
  std::vector<int32_t> doc_path_;
  py::list doc_paths_, points_, tokens_;
  py::dict files_, spans_, path_ids_, lines_;
  std::vector<py::object> file_of_;
  std::vector<Class> classes_;
  std::vector<Method> methods_;
  std::vector<int32_t> kept_classes_;
  struct KeyHash {
    size_t operator()(const std::pair<int64_t, int32_t>& k) const {
      return std::hash<int64_t>()(k.first * 0x9E3779B97F4A7C15LL + k.second);
    }
    size_t operator()(const std::tuple<int64_t, int32_t, int64_t>& k) const {
      return std::hash<int64_t>()((std::get<0>(k) * 0x9E3779B97F4A7C15LL + std::get<1>(k)) * 31 + std::get<2>(k));
    }
  };
  std::unordered_map<std::pair<int64_t, int32_t>, int32_t, KeyHash> class_of_;  // (user type, path) -> class
  std::unordered_map<std::tuple<int64_t, int32_t, int64_t>, int32_t, KeyHash> method_of_;  // (.., owner rid)
  int32_t next_ref_ = 0;
  PyObject* last_path_ = nullptr;
  int32_t last_path_id_ = -1;
};

// packed.pack's branch records (see packed.py's layout): per record (file index or -1, line, IL offset, class
// index or -1, method index or -1, is switch, outcome count, a code per outcome in kind order), a code that is not
// an int being the next of `expressions` (-1 - its index); each record's missed-outcome descriptions, `describe`
// (record, its outcome order) -> (descriptions, what is said when none ran), asked once per record shape (its
// kinds, texts, arms and notes objects: plan._make_plan makes equal ones one object); and the Release switch
// lines' fixes. Returns (records as int32 bytes, missed, expressions, fixes).
py::tuple PackRecords(const py::list& records, const py::dict& file_index, const py::object& describe) {
  std::vector<int32_t> out;
  py::list missed, expressions, fixes;
  std::unordered_map<PyObject*, std::vector<Py_ssize_t>> orders;  // kinds -> its outcomes in kind order
  py::dict described;  // shape -> (descriptions, none ran)
  py::object minus_one = Steal(PyLong_FromLong(-1));
  auto i32 = [&](PyObject* v) {  // (array("i")'s refusals)
    if (!PyLong_Check(v)) throw py::type_error("an integer is required");
    long long x = PyLong_AsLongLong(v);
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (x < INT32_MIN || x > INT32_MAX) throw std::overflow_error("signed integer is out of the int32 range");
    out.push_back(static_cast<int32_t>(x));
  };
  for (auto r : records) {
    PyObject* t = r.ptr();
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 14) throw py::value_error("a plan record is a tuple of 14");
    auto f = [&](int i) { return PyTuple_GET_ITEM(t, i); };
    PyObject *kinds = f(4), *codes = f(5), *at = f(13), *fix = f(12);
    Py_ssize_t n_kinds = SequenceSize(kinds, "kinds");
    auto [known_order, added] = orders.try_emplace(kinds);
    std::vector<Py_ssize_t>& order = known_order->second;
    if (added) {
      for (Py_ssize_t i = 0; i < n_kinds; ++i) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](Py_ssize_t a, Py_ssize_t b) {
        int c = PyObject_RichCompareBool(Item(kinds, a), Item(kinds, b), Py_LT);
        if (c < 0) throw py::error_already_set();
        return c == 1;
      });
    }
    PyObject* index = Get(file_index.ptr(), f(2));
    if (index == nullptr) index = minus_one.ptr();
    i32(index);
    i32(f(3));
    i32(f(1));
    if (at == Py_None) {
      out.push_back(-1), out.push_back(-1);
    } else {
      if (!PyTuple_Check(at) || PyTuple_GET_SIZE(at) != 2) throw py::value_error("at: (class, method)");
      i32(PyTuple_GET_ITEM(at, 0)), i32(PyTuple_GET_ITEM(at, 1));
    }
    out.push_back(True(f(8)) ? 1 : 0);  // (is switch)
    out.push_back(static_cast<int32_t>(order.size()));
    Py_ssize_t n_codes = SequenceSize(codes, "codes");
    py::list order_list(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      Py_ssize_t i = order[k];
      if (i >= n_codes) throw py::index_error("list index out of range");
      PyObject* code = Item(codes, i);
      if (PyLong_CheckExact(code)) {
        i32(code);
      } else {
        if (PyList_Append(expressions.ptr(), code) != 0) throw py::error_already_set();
        out.push_back(static_cast<int32_t>(-PyList_GET_SIZE(expressions.ptr())));
      }
      PyObject* v = PyLong_FromSsize_t(i);
      if (v == nullptr) throw py::error_already_set();
      PyList_SET_ITEM(order_list.ptr(), static_cast<Py_ssize_t>(k), v);
    }
    // (The descriptions depend on these only, not on the record's place: once per distinct shape.)
    // (kinds, generated, is switch, text, arms, notes)
    py::tuple shape = py::make_tuple(Steal(PyLong_FromVoidPtr(kinds)), Borrow(f(7)), Borrow(f(8)),
                                     Steal(PyLong_FromVoidPtr(f(9))), Steal(PyLong_FromVoidPtr(f(10))),
                                     Steal(PyLong_FromVoidPtr(f(11))));
    PyObject* known = Get(described.ptr(), shape.ptr());
    py::object made;
    if (known == nullptr) {
      made = describe(Borrow(t), order_list);
      if (!PyTuple_Check(made.ptr()) || PyTuple_GET_SIZE(made.ptr()) != 2)
        throw py::type_error("describe: (descriptions, none ran)");
      if (PyDict_SetItem(described.ptr(), shape.ptr(), made.ptr()) != 0) throw py::error_already_set();
      known = made.ptr();
    }
    PyObject* none_ran = PyTuple_GET_ITEM(known, 1);
    missed.append(py::make_tuple(Borrow(PyTuple_GET_ITEM(known, 0)),
                                 none_ran == Py_None ? py::object(py::none()) : Steal(PySequence_List(none_ran))));
    if (fix != Py_None) {
      py::list outcome_codes(order.size());
      for (size_t k = 0; k < order.size(); ++k) {
        PyObject* code = Item(codes, order[k]);
        Py_INCREF(code);
        PyList_SET_ITEM(outcome_codes.ptr(), static_cast<Py_ssize_t>(k), code);
      }
      py::list methods;
      for (Py_ssize_t i = 0, n = SequenceSize(fix, "fix"); i < n; ++i) methods.append(Steal(PySequence_Tuple(Item(fix, i))));
      fixes.append(py::make_tuple(Borrow(index), Borrow(f(3)), outcome_codes, methods, Borrow(f(0)), Borrow(f(1))));
    }
  }
  py::bytes blob(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(int32_t));
  return py::make_tuple(blob, missed, expressions, fixes);
}

}  // namespace

void RegisterMethods(py::module_& m) {
  py::class_<MethodPlan>(m, "MethodPlan",
                         "plan.make_plan's methods and points (see native_methods.cpp), then its class, file and "
                         "record rows. TypeError, ValueError or IndexError for tables it does not take.")
      .def(py::init<const py::dict&, const py::dict&, const py::list&, const py::list&, const py::set&,
                    const py::object&, const py::dict&, const py::list&, const py::object&>(),
           py::arg("sequence_points"), py::arg("kickoff"), py::arg("methods"), py::arg("generated"),
           py::arg("dropped"), py::arg("excluded"), py::arg("unmeasured"), py::arg("doc_paths"),
           py::arg("type_owner"))
      .def_property_readonly("points", &MethodPlan::points)
      .def_property_readonly("tokens", &MethodPlan::tokens)
      .def_property_readonly("files", &MethodPlan::files)
      .def_property_readonly("spans", &MethodPlan::spans)
      .def("new_methods", &MethodPlan::new_methods)
      .def("rows", &MethodPlan::rows)
      .def("records", &MethodPlan::records);
  m.def("pack_records", &PackRecords, py::arg("records"), py::arg("file_index"), py::arg("describe"),
        "packed.pack's branch records: (records as int32 bytes, missed, expressions, fixes) (native_methods.cpp).");
}
