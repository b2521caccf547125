"""Two small banks written for the wrong-answer tests, in English and in Japanese, with keys
of varied formats: years, dates, versions, counts, decimals, status codes, identifiers, names,
terms and sentences."""

from __future__ import annotations

ENGLISH = [
    ("In which year did the Treaty of Westphalia end the Thirty Years' War?", "1648"),
    ("On which date was the first version of the Unicode standard published?", "1991-10-01"),
    ("Which Python version made dictionaries keep insertion order by definition?", "3.7"),
    ("Which Django version dropped support for Python 3.9?", "5.0.0"),
    ("How many bones does an adult human skeleton usually have?", "206"),
    ("What is the value of Euler's number to three decimals?", "2.718"),
    ("Which HTTP status code means the client sent too many requests?", "429 Too Many Requests"),
    ("Which PostgreSQL setting caps the number of concurrent sessions?", "max_connections"),
    ("Which DOM method returns the element with a given identifier?", "getElementById"),
    ("Who wrote the novel Middlemarch?", "George Eliot"),
    ("Which planet has the moon Titan?", "Saturn"),
    ("Which response header says how long to wait before retrying?", "Retry-After"),
    ("Which transport protocol does DNS use by default for queries?", "UDP"),
    (
        "Why does a long transaction slow VACUUM in PostgreSQL?",
        "Old row versions are kept while the transaction is open",
    ),
    (
        "What happens to a Redis key whose TTL has expired?",
        "The key is removed the next time it is read or by the background sweep",
    ),
    ("Which enzyme unwinds the DNA double helix during replication?", "Helicase"),
]

JAPANESE = [
    ("江戸幕府が開かれたのは何年か。", "1603"),
    ("日本国憲法が施行された日はいつか。", "1947-05-03"),
    ("富士山の標高は何メートルか。", "3776メートル"),
    ("円周率を小数点以下二桁で表すと何か。", "3.14"),
    ("日本の都道府県はいくつか。", "47"),
    ("『源氏物語』の作者は誰か。", "紫式部"),
    ("地球に最も近い惑星はどれか。", "金星"),
    ("HTTP で待ち時間を伝えるレスポンスヘッダーは何か。", "Retry-After"),
    ("水の化学式に含まれる元素で、原子番号が 1 のものは何か。", "水素"),
    ("デッドロックはなぜ起きるのか。", "二つのスレッドが互いのロックを保持したまま待つから"),
    ("キャッシュが古い値を返すのはなぜか。", "書き込み後に無効化しないため古い値が残る"),
    ("TCP の接続を始める最初の送信は何か。", "SYN パケットを送信する"),
]

# Keys of every shape a bank holds, for the checks on how answers read: numbers with units,
# years, versions, identifiers, formulas, people's names, terms, long explanations, keys that
# end in punctuation, one-character keys, and (in Japanese) katakana, kanji and full-width
# digits.
ENGLISH_VARIED = [
    ("What is the boiling point of water at sea level, in degrees Celsius?", "100 °C"),
    ("How long is a marathon?", "42.195 km"),
    ("How many people live in Tokyo's metropolitan area, roughly?", "37 million"),
    ("What share of the Earth's surface is covered by water?", "71%"),
    ("In which year did the Berlin Wall fall?", "1989"),
    ("On which date did Apollo 11 land on the Moon?", "1969-07-20"),
    ("Which Python version introduced the match statement?", "3.10"),
    ("Which Python version added exception groups?", "3.11"),
    ("Which RFC defines HTTP semantics?", "RFC 9110"),
    ("Which ISO standard defines date and time formats?", "ISO 8601"),
    ("What is the chemical formula of water?", "H2O"),
    ("What is the chemical formula of carbon dioxide?", "CO2"),
    ("What is the chemical formula of table salt?", "NaCl"),
    ("Who formulated the laws of motion?", "Isaac Newton"),
    ("Who proposed the theory of general relativity?", "Albert Einstein"),
    ("Which organelle produces most of a cell's ATP?", "The mitochondrion"),
    ("Which element has the atomic number 1?", "Hydrogen"),
    ("What is the default TCP port of PostgreSQL?", "5432"),
    ("How many bits are in a byte?", "8"),
    ("What does the HTTP status code 404 mean?", "404 Not Found"),
    ("Which hash function produces a 256-bit digest in the SHA-2 family?", "SHA-256"),
    ("What is the smallest prime number?", "2"),
    ("What is the value of the integer zero written as a digit?", "0"),
    ("Which letter names the unknown in school algebra?", "x"),
    ("Why does the sky look blue?", "Because air scatters blue light more than red light."),
    (
        "Why does a B-tree index speed up lookups?",
        "It keeps keys sorted in shallow pages, so a lookup reads only a few pages from disk.",
    ),
    ("What does a mutex guarantee?", "Only one thread holds the lock at a time."),
    ("Which CSS property creates a new stacking context?", "z-index"),
    ("Which environment variable sets the Django settings module?", "DJANGO_SETTINGS_MODULE"),
    ("How many milliseconds are in a second?", "1,000"),
    ("In which century did the printing press spread in Europe?", "15th century"),
]

JAPANESE_VARIED = [
    ("関ヶ原の戦いが起きたのは何年か。", "１６００年"),
    ("日本国憲法が公布された日はいつか。", "1946年11月3日"),
    ("日本の人口はおよそ何人か。", "約1億2千万人"),
    ("東京スカイツリーの高さは何メートルか。", "６３４メートル"),
    ("日本の国土のうち森林が占める割合はどれくらいか。", "約67%"),
    ("水の化学式は何か。", "H2O"),
    ("細胞でエネルギーを作る小器官は何か。", "ミトコンドリア"),
    ("血糖値を下げるホルモンは何か。", "インスリン"),
    ("原子番号1の元素は何か。", "水素"),
    ("地球の隣で、太陽に近い側を回る惑星はどれか。", "金星"),
    ("『吾輩は猫である』の作者は誰か。", "夏目漱石"),
    ("天下統一を果たした武将は誰か。", "豊臣秀吉"),
    ("Python で match 文が入ったのはどのバージョンか。", "3.10"),
    ("HTTP のセマンティクスを定める RFC はどれか。", "RFC 9110"),
    ("TCP の接続を終えるときに最初に送るものは何か。", "FIN パケットを送信します。"),
    ("ライブロックはなぜ起きるのか。", "二つのプロセスが互いに譲り合って先に進まないから。"),
    (
        "インデックスを使うと検索が速くなるのはなぜか。",
        "ソート済みの木をたどるので、読むページが少なくて済みます。",
    ),
    ("1バイトは何ビットか。", "８ビット"),
    ("日本で最も大きい島はどれか。", "本州"),
    ("太平洋の次に広い海洋はどれか。", "大西洋"),
    ("ファイルを読み込む処理を何と呼ぶか。", "読み込み"),
    ("最も小さい素数は何か。", "２"),
    ("方角のうち、太陽が昇るのはどれか。", "東"),
]

# Keys at the edges: punctuation alone, one letter or word, a final full stop, symbols, full-width
# letters, digits and points, Japanese keys that are a particle, a predicate or a polite ending.
EDGE_ENGLISH = [
    (f"What is the answer to edge item {n}?", key)
    for n, key in enumerate(
        ["—", "?", "...", "A.", "42.", "3.11.", "Yes", "True", "It.", "e.g. HTTP/2", "v2.0.1"]
        + ["100%", "-1", "1e-9", "O(n log n)", "C++", "C#", ".NET", "Node.js"],
        1,
    )
]
EDGE_JAPANESE = [
    (f"端の項目{n}の答えは何か。", key)
    for n, key in enumerate(
        ["—", "はい", "いいえ", "を", "。", "「東京」", "（なし）", "ある", "です", "１", "Ｈ２Ｏ"]
        + ["ｶﾀｶﾅ", "約０．５秒", "第3版", "令和5年"],
        1,
    )
]
