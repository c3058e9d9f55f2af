"""Plain Python functions in the kernel language, for rebuilding from bytecode
(tests/test_jit_bytecode.py): each takes a list ``a`` (changed in place) and two numbers. ``bump``
stands for an atomic (it changes ``a`` and returns the old value) and records each call in
``TRACE``, so a call run twice or out of order shows."""

# ruff: noqa: E741, SIM108, PLR1714


def straight(a, x, y):
    z = x * 3 + y
    a[0] = z - 1
    a[1] += z
    a[2] //= 2
    return z % 7


def branches(a, x, y):
    if x > y:
        a[0] = 1
    elif x == y:
        a[0] = 2
    else:
        a[0] = 3
    if x > 0 and y > 0:
        a[1] = x
    if x < 0 or y < 0:
        a[2] = y
    if not (x > 1 and y > 1) or x == 5:
        a[3] = 9
    if x > 0 and (y > 0 or x > y) and not y == 3:
        a[4] = 4
    else:
        a[4] = -4
    return a[0]


def values(a, x, y):
    p = x if x > y else y
    q = x and y
    r = x or y or 7
    s = 0 < x < 10
    t = x < y <= 2 * x
    u = (x > 0) and (y > 0) or (x + y == 3)
    a[0] = p
    a[1] = q
    a[2] = r
    a[3] = int(s) + int(t) + int(u)
    a[4] = (x if y > 2 else -x) + (y if x > 2 else -y)
    return -(p if p > 3 else 2 * p)


def for_loops(a, x, y):
    total = 0
    for i in range(len(a)):
        if a[i] < 0:
            continue
        total += a[i]
        if total > 50:
            break
    else:
        total = -total
    for i in range(1, 8, 3):
        for j in range(i):
            total += i * j
            if j == x:
                break
    n = 0
    for k in range(x):
        n += k
    return total + n


def while_loops(a, x, y):
    i = 0
    while i < len(a) and a[i] != y:
        i += 1
    j = x
    while j > 0:
        j -= 2
        if j == 3:
            continue
        a[0] += j
    else:
        a[1] = 7
    k = 0
    while True:
        k += 1
        if k * k > x + 5:
            break
    m = 10
    while m > 0:
        m -= 3
        if m == y:
            break
    else:
        m = 100
    return i * 1000 + k * 10 + m


def returns(a, x, y):
    for i in range(len(a)):
        for j in range(len(a)):
            if a[i] + a[j] == x:
                return i * 10 + j
    while x > 0:
        x -= 1
        if x == y:
            return -1
    if y > 3:
        return 3
    return


def tuples(a, x, y):
    p, q = x, y
    p, q = q, p
    r = (p, q)
    s, t = r
    a[0], a[1] = s, t
    a[2] = a[0] if a[1] > a[0] else a[1]
    return s - t


def nested(a, x, y):
    acc = 0
    for i in range(4):
        j = 0
        while j < 3:
            if (i + j) % 2 == 0:
                if x > i:
                    acc += 1
                else:
                    acc -= 1
            elif y > j:
                acc += 10
            j += 1
        if acc > 20:
            break
    a[0] = acc
    return acc


def unary_and_calls(a, x, y):
    z = -x + (+y) - ~x
    w = abs(x - y) + min(x, y) + max(x, y, 3)
    v = not x
    a[0] = z
    a[1] = w
    a[2] = int(v)
    a[3] = round(x / (y + 0.5), 2) if y >= 0 else 0
    return divmod(w, 3)[0] + pow(2, 3)


def slices(a, x, y):
    b = a[1:3]
    c = a[::2]
    a[0] = len(b) + len(c)
    a[x % 2] = a[-1]
    return a[y % 3]


def while_with_continue(a, x, y):
    i = 0
    s = 0
    while i < 12:
        i += 1
        if i % 3 == 0:
            continue
        if i > x + 6:
            break
        s += i
    return s


TRACE: list = []


def bump(a, i):
    old = a[i % 8]
    a[i % 8] = old + 1
    TRACE.append(i)
    return old


def effects_in_order(a, x, y):
    p = q = bump(a, 0)  # one call, two names
    u, v = bump(a, 1), bump(a, 2)  # left to right
    a[3], w = bump(a, 3), a[3]  # w reads a[3] after the call changed it
    if (old := bump(a, 4)) < y:
        a[5] = old
    if 0 <= bump(a, x) < y:  # the middle of a chain runs once
        a[6] += 1
    if bump(a, 7):
        pass
    return p + q + u * 10 + v * 100 + w * 1000


def search_loops(a, x, y):
    s = 0
    for i in range(8):
        if a[i] == y:
            if x > 0:
                s = i
            break
        s += 1
    for i in range(8):
        if a[i] == x:
            return i if y > 0 else -i
    w = 0
    while w < 2 or a[w % 8] > 100:
        w += 1
    k = 0
    while min(k, 9) < 5:
        k += 1
        if y > k:
            continue
        a[1] += 1
    return s * 100 + w * 10 + k


CASES = [straight, branches, values, for_loops, while_loops, returns, tuples, nested, unary_and_calls, slices,
         while_with_continue]


def first_positive(a, x, y):
    for i in range(len(a)):
        return a[i] + x
    return y


CASES.append(first_positive)


def for_else_in_for(a, x, y):
    primes = 0
    for p in range(2, x + 12):
        for q in range(2, p):
            if p % q == 0:
                break
        else:
            primes += 1
    return primes


def long_tuple(a, x, y):
    t = (x, y, x + 1, y + 1, x + 2, y + 2, x + 3, y + 3, x + 4, y + 4, x + 5, y + 5, x + 6, y + 6, x + 7, y + 7,
         x + 8, y + 8, x + 9, y + 9, x + 10, y + 10, x + 11, y + 11, x + 12, y + 12, x + 13, y + 13, x + 14, y + 14,
         x + 15, y + 15, x + 16, y + 16)
    return t[x % 34] + len(t)


def keywords(a, x, y):
    return int(round(number=x / 3, ndigits=1) * 10) + max(x, y, key=abs)


CASES += [for_else_in_for, long_tuple, keywords, effects_in_order, search_loops]
