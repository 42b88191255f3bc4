# str methods: index and rindex, the rest of the is* tests, splitlines,
# translate, expandtabs, and CPython's words for bad arguments.
s = 'hello world'
print(s.find('zz'), s.rfind('l'))
print(s.find('zz'), s.rfind('l'))
for f in [lambda: s.index('zz'), lambda: s.rindex('zz'), lambda: s.index(3), lambda: s.split(1), lambda: s.startswith(1),
          lambda: s.replace('a'), lambda: s.join([1]), lambda: s.strip(1), lambda: s.count(1), lambda: s.find(1),
          lambda: s.upper(1), lambda: s.center(), lambda: s.ljust('a'), lambda: s.zfill('3'), lambda: s.encode(1),
          lambda: s.split(',', 'x'), lambda: s.endswith(('a', 1)), lambda: s.partition(1), lambda: s.rjust(5, 1),
          lambda: s.removeprefix(1), lambda: s.splitlines(1, 2), lambda: s.expandtabs('x'), lambda: s.rjust(5, 'ab'),
          lambda: s.index(), lambda: s.rsplit(None, 'x'), lambda: s.lower(x=1), lambda: s.title(1), lambda: s.isdigit(1),
          lambda: s.translate(), lambda: s.casefold(), lambda: s.swapcase(), lambda: s.isupper(), lambda: s.islower(),
          lambda: s.isalnum(), lambda: s.isnumeric(), lambda: s.isidentifier(), lambda: s.istitle(), lambda: s.isdecimal(),
          lambda: s.rpartition('o'), lambda: s.center(15, '*'), lambda: s.ljust(13, '-'), lambda: s.rjust(13), lambda: s.count('l', 3),
          lambda: s.removesuffix('ld'), lambda: s.removeprefix('he'), lambda: s.partition('o'), lambda: 'a\tb'.expandtabs(4),
          lambda: s.rsplit(' ', 1), lambda: s.split(maxsplit=1), lambda: s.startswith('wor', 6), lambda: s.endswith('hell', 0, 4)]:
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__ + ':', e)
print('a\nb\r\nc\rd'.splitlines(), 'a\nb\r\n'.splitlines(True), ''.splitlines(), 'x\n'.splitlines(keepends=True))
print('ABC'.isupper(), 'AbC'.isupper(), '1A'.isupper(), '123'.isupper(), 'abc1'.islower(), 'Hello World'.istitle(), 'Hello world'.istitle(), 'ab1'.isalnum(), 'a b'.isalnum(), '_x1'.isidentifier(), '1x'.isidentifier(), '²'.isdigit(), '²'.isdecimal(), '½'.isnumeric())
print('abc'.translate({97: 'X', 98: None, 99: 100}), 'Straße'.casefold(), 'aBc'.swapcase(), 'a\tbc\td'.expandtabs(), 'x'.center(4, 'é'))
for f in [lambda: 'a'.index('b', 0, 1), lambda: 'abc'.rindex('c', 0, 2), lambda: 'a'.find('a', 'x'), lambda: 'a'.index('a', 0, 1, 2), lambda: 'a'.find(x='a'),
          lambda: 'a'.startswith(1, 5), lambda: 'a'.endswith((1,), 5), lambda: 'a'.find(1, 'x'), lambda: 'a'.count(1, 5), lambda: 'a'.index(1, 0, 'x')]:
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__ + ':', e)
