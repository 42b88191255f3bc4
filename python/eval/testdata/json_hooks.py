# json: sort_keys on the original keys, the decoder's hooks, bytes input,
# JSONDecoder and JSONEncoder subclasses; bytes.decode.
import json
print(json.dumps({2: 'a', 10: 'b', 1: 'c'}, sort_keys=True))
print(json.dumps({'b': 1, 'a': {'d': 1, 'c': 2}}, sort_keys=True, indent=2))
try:
    json.dumps({1: 'a', 'b': 2}, sort_keys=True)
except TypeError as e:
    print('TypeError', e)
print(json.dumps({True: 1, None: 2, 1.5: 3}))
print(json.loads('{"a": {"b": 1}}', object_hook=lambda d: sorted(d.items())))
print(json.loads('{"a": 1, "b": [1, {"c": 2}]}', object_pairs_hook=lambda p: ('pairs', p)))
print(json.loads('[1.5, 2, 3e2]', parse_float=lambda s: 'F' + s, parse_int=lambda s: 'I' + s))
print(json.loads('[NaN, Infinity]', parse_constant=lambda s: 'C' + s))
print(json.loads(b'{"x": [1, 2]}'))
print(json.loads('{"a": 1}', object_hook=dict, object_pairs_hook=list))
dec = json.JSONDecoder()
print(dec.decode('[1, 2]'), dec.raw_decode('{"a": 1} tail'))
dec2 = json.JSONDecoder(object_hook=lambda d: {k.upper(): v for k, v in d.items()})
print(dec2.decode('{"a": {"b": 2}}'))
class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, set):
            return sorted(o)
        return super().default(o)
print(json.dumps({'s': {3, 1, 2}}, cls=Enc), Enc(indent=1).encode([1]), json.JSONEncoder(sort_keys=True).encode({'b': 1, 'a': 2}))
try:
    json.dumps(object(), cls=Enc)
except TypeError as e:
    print('TypeError', e)
class D(json.JSONDecoder):
    def __init__(self, **kw):
        super().__init__(object_hook=self.hook, **kw)
    def hook(self, d):
        return ('D', d)
print(json.loads('{"a": [{"b": 1}]}', cls=D))
try:
    json.loads('\ufeff[1]')
except json.JSONDecodeError as e:
    print('JSONDecodeError', e)
try:
    json.loads(5)
except TypeError as e:
    print('TypeError', e)
print(json.loads('"\\ud83d\\ude00"') == '\U0001F600', json.dumps('é'), json.dumps('é', ensure_ascii=False))
print(json.dumps([1, 2], separators=(',', ':')), json.dumps({'a': [1, {'b': None}]}, indent='\t'))
print(isinstance(json.JSONDecodeError('m', 'doc', 1), ValueError))
print(b'caf\xc3\xa9'.decode(), b'a\xffb'.decode('utf-8', 'replace'), b'a\xffb'.decode(errors='ignore'), b'\xe9'.decode('latin-1'))
for bad in [b'\xff', b'a\xc3', b'\xc3(', b'\x80']:
    try:
        bad.decode()
    except UnicodeDecodeError as e:
        print('UnicodeDecodeError', e)
try:
    b'x'.decode('klingon')
except LookupError as e:
    print('LookupError', e)
try:
    json.loads(b'\xff')
except UnicodeDecodeError as e:
    print('UnicodeDecodeError', e)
