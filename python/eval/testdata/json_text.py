import json
data = {"b": [1, 2.5, None, True, False], "a": {"x": "é\n\"q\"", "y": []}, "n": {}, 3: "int key", 1.5: "f", None: 0}
print(json.dumps(data))
print(json.dumps(data, indent=2))
print(json.dumps(data, sort_keys=True, indent="\t", ensure_ascii=False, default=str, skipkeys=True) if False else json.dumps({"k": 1, "j": [1, {"z": 2}]}, sort_keys=True, indent="\t"))
print(json.dumps([1, 2], separators=(",", ":")), json.dumps("x\u0001\U0001f600"), json.dumps(float("inf")), json.dumps(1e100), json.dumps(0.1))
try:
    json.dumps(float("nan"), allow_nan=False)
except ValueError as e:
    print(e)
try:
    json.dumps({(1, 2): 3})
except TypeError as e:
    print(e)
print(json.dumps({(1, 2): 3, "ok": 1}, skipkeys=True))
class Thing:
    pass
try:
    json.dumps({"t": Thing()})
except TypeError as e:
    print(e)
print(json.dumps({"t": Thing()}, default=lambda o: type(o).__name__))
l = []
l.append(l)
try:
    json.dumps(l)
except ValueError as e:
    print(e)
text = '{"a": [1, 2.0, -3e2, "s\\u00e9\\n", null, true], "b": {"c": {}}, "d": 0.5, "e": "\\ud83d\\ude00"}'
v = json.loads(text)
print(v, type(v["a"][1]), json.loads("  7 "), json.loads('"x"'))
for bad in ['{"a" 1}', '[1, 2', '{"a": 1,}', '', '[1] x', '"abc']:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(type(e).__name__, e, e.pos, isinstance(e, ValueError))
print(json.loads(json.dumps(data)) == {"b": [1, 2.5, None, True, False], "a": {"x": "é\n\"q\"", "y": []}, "n": {}, "3": "int key", "1.5": "f", "null": 0})
