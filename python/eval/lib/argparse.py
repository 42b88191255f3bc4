# argparse, as gpumemrepl runs it (embedded by argparse.go).
import sys

SUPPRESS = '==SUPPRESS=='
OPTIONAL = '?'
ZERO_OR_MORE = '*'
ONE_OR_MORE = '+'


class ArgumentError(Exception):
    pass


class ArgumentTypeError(Exception):
    pass


class Namespace:
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __repr__(self):
        return 'Namespace(' + ', '.join(f'{k}={v!r}' for k, v in self.__dict__.items()) + ')'

    def __eq__(self, other):
        if not isinstance(other, Namespace):
            return NotImplemented
        return vars(self) == vars(other)

    def __contains__(self, key):
        return key in self.__dict__


class HelpFormatter:
    pass


class RawTextHelpFormatter(HelpFormatter):
    pass


class RawDescriptionHelpFormatter(HelpFormatter):
    pass


class ArgumentDefaultsHelpFormatter(HelpFormatter):
    pass


class _Action:
    def __init__(self, flags, dest, action, nargs, const, default, type, choices, required, help, metavar):
        self.option_strings = flags
        self.dest = dest
        self.action = action
        self.nargs = nargs
        self.const = const
        self.default = default
        self.type = type
        self.choices = choices
        self.required = required
        self.help = help
        self.metavar = metavar

    def takes_value(self):
        return self.action in ('store', 'append')

    def shown(self):
        if self.metavar is not None:
            return self.metavar
        if self.choices is not None:
            return '{' + ','.join(str(c) for c in self.choices) + '}'
        if self.option_strings:
            return self.dest.upper()
        return self.dest

    def value_usage(self):
        m = self.shown()
        if self.nargs == '?':
            return f'[{m}]'
        if self.nargs == '*':
            return f'[{m} ...]'
        if self.nargs == '+':
            return f'{m} [{m} ...]'
        if isinstance(self.nargs, int):
            return ' '.join([m] * self.nargs)
        return m

    def usage(self):
        if not self.option_strings:
            return self.value_usage()
        s = self.option_strings[0]
        if self.takes_value():
            s += ' ' + self.value_usage()
        return s if self.required else f'[{s}]'


class _Group:
    def __init__(self, parser, title=None, description=None):
        self._parser = parser
        self.title = title

    def add_argument(self, *args, **kwargs):
        return self._parser.add_argument(*args, **kwargs)

    def add_mutually_exclusive_group(self, **kwargs):
        return _Group(self._parser)

    def add_argument_group(self, *args, **kwargs):
        return _Group(self._parser)


class ArgumentParser:
    def __init__(self, prog=None, usage=None, description=None, epilog=None, parents=(),
                 formatter_class=HelpFormatter, prefix_chars='-', fromfile_prefix_chars=None,
                 argument_default=None, conflict_handler='error', add_help=True,
                 allow_abbrev=True, exit_on_error=True):
        if prog is None:
            prog = sys.argv[0].rsplit('/', 1)[-1] if sys.argv and sys.argv[0] else 'python'
        self.prog = prog
        self.description = description
        self.epilog = epilog
        self._usage = usage
        self._actions = []
        self._defaults = {}
        self.argument_default = argument_default
        self.exit_on_error = exit_on_error
        if add_help:
            self.add_argument('-h', '--help', action='help', help='show this help message and exit')
        for p in parents:
            for a in p._actions:
                if a.action != 'help':
                    self._actions.append(a)
            self._defaults.update(p._defaults)

    def add_argument(self, *flags, action='store', nargs=None, const=None, default=None, type=None,
                     choices=None, required=None, help=None, metavar=None, dest=None, version=None):
        if not flags:
            raise ValueError('add_argument needs a name or flags')
        if action not in ('store', 'store_true', 'store_false', 'store_const', 'append',
                          'append_const', 'count', 'help', 'version'):
            raise _refusal(NotImplementedError(f'argparse action {action!r} is not modelled by gpumemrepl'))
        optional = flags[0].startswith('-')
        if dest is None:
            if optional:
                longs = [f for f in flags if f.startswith('--')]
                dest = (longs[0] if longs else flags[0]).lstrip('-').replace('-', '_')
            else:
                dest = flags[0]
        if action == 'store_true':
            const, default = True, False if default is None else default
        elif action == 'store_false':
            const, default = False, True if default is None else default
        if default is None and self.argument_default is not None:
            default = self.argument_default
        if required is None:
            required = not optional and nargs not in ('?', '*')
        a = _Action(list(flags) if optional else [], dest, action, nargs, const, default, type, choices,
                    required, help, metavar)
        a.version = version
        self._actions.append(a)
        return a

    def add_argument_group(self, title=None, description=None):
        return _Group(self, title, description)

    def add_mutually_exclusive_group(self, required=False):
        return _Group(self)

    def add_subparsers(self, **kwargs):
        raise _refusal(NotImplementedError('argparse subcommands (add_subparsers) are not modelled by gpumemrepl'))

    def set_defaults(self, **kwargs):
        self._defaults.update(kwargs)

    def get_default(self, dest):
        for a in self._actions:
            if a.dest == dest and a.default is not None:
                return a.default
        return self._defaults.get(dest)

    def format_usage(self):
        # argparse's layout at its default width of 78 columns: one line,
        # or the optionals and then the positionals wrapped under the
        # program's name
        if self._usage is not None:
            return 'usage: ' + self._usage.replace('%(prog)s', self.prog) + '\n'
        prefix, width = 'usage: ', 78
        opts = [a.usage() for a in self._actions if a.option_strings]
        poss = [a.usage() for a in self._actions if not a.option_strings]
        line = ' '.join([self.prog] + opts + poss)
        if len(prefix) + len(line) <= width:
            return prefix + line + '\n'
        if len(prefix) + len(self.prog) > 0.75 * width:
            raise _refusal(NotImplementedError("argparse's usage layout for a program name this long is not modelled by gpumemrepl"))
        indent = ' ' * (len(prefix) + len(self.prog) + 1)

        def wrap(parts, first):
            lines, cur = [], []
            used = len(prefix) - 1 if first else len(indent) - 1
            for part in parts:
                if used + 1 + len(part) > width and cur:
                    lines.append(indent + ' '.join(cur))
                    cur, used = [], len(indent) - 1
                cur.append(part)
                used += len(part) + 1
            if cur:
                lines.append(indent + ' '.join(cur))
            if first:
                lines[0] = lines[0][len(indent):]
            return lines
        if opts:
            lines = wrap([self.prog] + opts, True) + wrap(poss, False)
        else:
            lines = wrap([self.prog] + poss, True)
        return prefix + '\n'.join(lines) + '\n'

    def _invocation(self, a):
        if not a.option_strings:
            return a.shown()
        if not a.takes_value():
            return ', '.join(a.option_strings)
        return ', '.join(f + ' ' + a.value_usage() for f in a.option_strings)

    def _help_text(self, a):
        text = a.help
        if '%(' in text:
            text = text % dict(vars(a), default=a.default, prog=self.prog)
        return text

    def format_help(self):
        # argparse's HelpFormatter at 78 columns: each argument's help
        # starts in a column after the longest invocation, at most the
        # 24th, on the next line when the invocation is longer; help
        # words wrap at the width
        width = 78
        longest = max([len(self._invocation(a)) + 2 for a in self._actions] + [0])
        col = min(longest + 2, 24)
        out = [self.format_usage()]
        if self.description:
            out.append('\n' + self.description.replace('%(prog)s', self.prog) + '\n')

        def section(title, actions):
            out.append(f'\n{title}:\n')
            for a in actions:
                inv = '  ' + self._invocation(a)
                if not a.help:
                    out.append(inv + '\n')
                    continue
                words, lines, cur = self._help_text(a).split(), [], ''
                for w in words:
                    if cur and len(cur) + 1 + len(w) > width - col:
                        lines.append(cur)
                        cur = w
                    else:
                        cur = w if not cur else cur + ' ' + w
                if cur:
                    lines.append(cur)
                if len(inv) <= col - 2:
                    out.append(inv.ljust(col) + lines[0] + '\n')
                    lines = lines[1:]
                else:
                    out.append(inv + '\n')
                for line in lines:
                    out.append(' ' * col + line + '\n')
        pos = [a for a in self._actions if not a.option_strings]
        opt = [a for a in self._actions if a.option_strings]
        if pos:
            section('positional arguments', pos)
        if opt:
            section('options', opt)
        if self.epilog:
            out.append('\n' + self.epilog + '\n')
        return ''.join(out)

    def print_usage(self, file=None):
        print(self.format_usage(), end='', file=file)

    def print_help(self, file=None):
        print(self.format_help(), end='', file=file)

    def exit(self, status=0, message=None):
        if message:
            print(message, end='', file=sys.stderr)
        sys.exit(status)

    def error(self, message):
        if not self.exit_on_error:
            raise ArgumentError(message)
        self.print_usage(sys.stderr)
        self.exit(2, f'{self.prog}: error: {message}\n')

    def _convert(self, a, s):
        if a.type is None:
            v = s
        else:
            try:
                v = a.type(s)
            except ArgumentTypeError as e:
                self.error(f'argument {"/".join(a.option_strings) or a.dest}: {e}')
            except (TypeError, ValueError):
                name = getattr(a.type, '__name__', repr(a.type))
                self.error(f'argument {"/".join(a.option_strings) or a.dest}: invalid {name} value: {s!r}')
        if a.choices is not None and v not in a.choices:
            listed = ', '.join(repr(c) for c in a.choices)
            self.error(f'argument {"/".join(a.option_strings) or a.dest}: invalid choice: {v!r} (choose from {listed})')
        return v

    def _is_flag(self, s):
        # an option string, not a value: '-1' and '-.5' are values unless
        # the parser has an option that looks like a negative number
        if not s.startswith('-') or len(s) < 2:
            return False
        if s[1:].replace('.', '', 1).isdigit():
            return any(o[1:].replace('.', '', 1).isdigit() for a in self._actions for o in a.option_strings)
        return True

    def _find(self, flag):
        for a in self._actions:
            if flag in a.option_strings:
                return a
        if flag.startswith('--'):
            hits = [(a, o) for a in self._actions for o in a.option_strings if o.startswith('--') and o.startswith(flag)]
            if len(hits) == 1:
                return hits[0][0]
            if len(hits) > 1:
                self.error(f"ambiguous option: {flag} could match {', '.join(o for _, o in hits)}")
        return None

    def _take(self, a, ns, args, i, flag, attached):
        if a.action == 'help':
            self.print_help()
            self.exit()
        if a.action == 'version':
            print(a.version)
            self.exit()
        if not a.takes_value():
            if attached is not None:
                self.error(f'argument {flag}: ignored explicit argument {attached!r}')
            if a.action == 'count':
                setattr(ns, a.dest, (getattr(ns, a.dest, None) or 0) + 1)
            elif a.action == 'append_const':
                setattr(ns, a.dest, (getattr(ns, a.dest, None) or []) + [a.const])
            else:
                setattr(ns, a.dest, a.const)
            return i
        if attached is not None:
            values = [attached]
        else:
            values = []
            want = a.nargs
            while i < len(args) and not self._is_flag(args[i]):
                if want is None and values:
                    break
                if want == '?' and values:
                    break
                if isinstance(want, int) and len(values) == want:
                    break
                values.append(args[i])
                i += 1
        if a.nargs is None and len(values) != 1:
            self.error(f'argument {flag}: expected one argument')
        if a.nargs == '+' and not values:
            self.error(f'argument {flag}: expected at least one argument')
        if isinstance(a.nargs, int) and len(values) != a.nargs:
            self.error(f'argument {flag}: expected {a.nargs} arguments')
        conv = [self._convert(a, v) for v in values]
        if a.nargs is None:
            v = conv[0]
        elif a.nargs == '?':
            v = conv[0] if conv else a.const
        else:
            v = conv
        if a.action == 'append':
            setattr(ns, a.dest, (getattr(ns, a.dest, None) or []) + [v])
        else:
            setattr(ns, a.dest, v)
        return i

    def parse_known_args(self, args=None, namespace=None):
        if args is None:
            args = sys.argv[1:]
        args = list(args)
        ns = Namespace() if namespace is None else namespace
        for a in self._actions:
            if a.action in ('help', 'version') or hasattr(ns, a.dest):
                continue
            d = a.default
            if isinstance(d, str) and a.type is not None and a.takes_value():
                d = self._convert(a, d)
            setattr(ns, a.dest, d)
        for k, v in self._defaults.items():
            if not hasattr(ns, k):
                setattr(ns, k, v)
        seen = set()
        extras = []
        positionals = []
        i = 0
        while i < len(args):
            s = args[i]
            i += 1
            if s == '--':
                positionals += args[i:]
                break
            if self._is_flag(s):
                flag, eq, attached = s.partition('=')
                if not eq:
                    attached = None
                a = self._find(flag)
                if a is None and not flag.startswith('--') and len(flag) > 2:
                    a = self._find(flag[:2])
                    if a is not None and a.takes_value():
                        attached = flag[2:]
                        flag = flag[:2]
                    elif a is not None:
                        args.insert(i, '-' + flag[2:])  # -vv: the rest are more flags
                        flag = flag[:2]
                if a is None:
                    extras.append(s)
                    continue
                seen.add(a)
                i = self._take(a, ns, args, i, flag, attached)
            else:
                positionals.append(s)
        j = 0
        pos = [a for a in self._actions if not a.option_strings]
        for k, a in enumerate(pos):
            if a.nargs in ('*', '+'):
                # leave the later positionals the values they need
                rest = sum(1 if b.nargs in (None, '+') else b.nargs if isinstance(b.nargs, int) else 0 for b in pos[k + 1:])
                take = positionals[j:max(j, len(positionals) - rest)]
            elif a.nargs == '?':
                take = positionals[j:j + 1]
            elif isinstance(a.nargs, int):
                take = positionals[j:j + a.nargs]
            else:
                take = positionals[j:j + 1]
            if isinstance(a.nargs, int) and len(take) < a.nargs:
                take = []
            j += len(take)
            if take or a.nargs in ('*', '?'):
                seen.add(a)
            if not take:
                if a.nargs == '*':
                    setattr(ns, a.dest, [] if a.default is None else a.default)
                continue
            conv = [self._convert(a, v) for v in take]
            setattr(ns, a.dest, conv[0] if a.nargs in (None, '?') else conv)
        extras += positionals[j:]
        missing = [a for a in self._actions if a.required and a not in seen]
        if missing:
            names = ', '.join('/'.join(a.option_strings) or a.dest for a in missing)
            self.error(f'the following arguments are required: {names}')
        return ns, extras

    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error('unrecognized arguments: ' + ' '.join(extras))
        return ns
