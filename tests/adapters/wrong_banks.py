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
