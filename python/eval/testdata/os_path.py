# os.path's string functions as posixpath has them, exists/isdir/isfile asked
# of this machine; import os.path.
import os
import os.path
from os.path import join
print(os.path.join('a', 'b', 'c.txt'), join('/x', '/abs'), os.path.join('a/', 'b'), os.path.join('', 'b'))
print(os.path.basename('/x/y.py'), os.path.dirname('/x/y.py'), os.path.split('a/b/'), os.path.split('//a'), os.path.split('noslash'))
print(os.path.splitext('f.tar.gz'), os.path.splitext('.bashrc'), os.path.splitext('a/b.c/d'), os.path.splitext('x..'))
print(os.path.normpath('a//b/./c/../d'), os.path.normpath('/../x'), os.path.normpath(''), os.path.normpath('../../a'), os.path.isabs('/a'), os.path.isabs('a'))
print(os.path.exists('/definitely/not/here'), os.path.isdir('/'), os.path.isfile('/'), os.sep, os.path.sep)
print(os.path.abspath('/a/b/../c'))
try:
    os.path.join('a', 1)
except TypeError as e:
    print(e)
