#!/usr/bin/env python3
"""The model's vote on a name a reading invented (`ask::scope::answer_scope` with
`Found::InventedNames`), under candidate wordings, on planted cases.

    python3 bench/vote_wording.py [A B C D]     (cluster and chat server running, scripts/cluster.sh, scripts/llm.sh)

Each case is a question, a query that runs, and a name a second reading wrote that no table has.
Two are unanswerable questions of the third held-out set (dev3 #36, #44: the database has no
pilots, no neighbourhoods), whose names are the ones their runs recorded; seven are answerable
questions of the `spider` dev databases with a planted name after one of the question's words
that the schema spells otherwise ("towns" for `city`, "winnings" for `earnings`). The prompt is
`prompts::answer_scope` as written at the commit that added this file, with the schema shown as
CREATE TABLE lines (the extension's own schema text differs in layout), at temperature 0 and
under the vote's JSON schema. Figures: per wording, the unanswerable cases voted no and the
answerable ones voted yes. D is the wording the extension uses.
"""
import json, os, subprocess, sys, urllib.request

os.environ.update(PGHOST=os.environ.get("PGHOST", "127.0.0.1"), PGPORT=os.environ.get("PGPORT", "54815"), PGUSER=os.environ.get("PGUSER", "postgres"))
CHAT = "http://127.0.0.1:%s/v1/chat/completions" % os.environ.get("NL2SQL_CHAT_PORT", "18081")
VOTE = {"type": "object", "properties": {"answerable": {"type": "boolean"},
        "kind": {"type": "string", "enum": ["answerable", "missing_data", "outside_knowledge", "general_knowledge", "beyond_sql"]},
        "missing": {"type": "string", "maxLength": 200}}, "required": ["answerable", "kind", "missing"]}


def schema(db):
    out = subprocess.run(["psql", "-d", db, "-Atc", "select table_name||'|'||string_agg(column_name||' '||data_type, ', ' order by ordinal_position) "
                          "from information_schema.columns where table_schema='public' group by table_name order by 1"], capture_output=True, text=True, check=True).stdout
    return "\n".join("CREATE TABLE %s (%s);" % tuple(l.split("|", 1)) for l in out.strip().split("\n"))


def vote(db, question, sql, lead, found):
    system = "You are an expert PostgreSQL analyst. You answer questions about this database with read-only SQL.\nDatabase schema:\n" + schema(db)
    user = (f"Question: {question}\n\nThe query written for it:\n{sql}\n\n{lead}:\n" + "\n".join("- " + f for f in found) +
            "\n\nCan one SQL query over this database answer the question from the data it stores? Answer false if no table or column of the schema "
            "above holds what the question asks for (a column with a similar name that means something else does not count). Answer true only if a "
            "table or a column of the schema holds exactly what is asked.\n"
            'Reply in JSON: {"answerable": true or false, "kind": "answerable", "missing_data", "outside_knowledge", "general_knowledge" or "beyond_sql", '
            '"missing": "what the database lacks, in a few words"}')
    body = {"model": "default", "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}], "temperature": 0, "max_tokens": 120,
            "response_format": {"type": "json_schema", "json_schema": {"name": "answerable", "strict": True, "schema": VOTE}}}
    req = urllib.request.Request(CHAT, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    text = json.load(urllib.request.urlopen(req, timeout=120))["choices"][0]["message"]["content"]
    return json.loads(text.strip().removeprefix("```json").removesuffix("```"))


# (answerable?, database, question, query that runs, the name a reading invented)
CASES = [
    (False, "spider_flight_2", "List the pilots of each airline.",
     "SELECT public.airlines.airline FROM public.airlines JOIN public.flights ON public.airlines.uid = public.flights.airline GROUP BY public.airlines.airline", "pilot"),
    (False, "spider_network_1", "List the high schoolers who live in the same neighbourhood.",
     "SELECT DISTINCT T1.name FROM highschooler AS T1 JOIN friend AS T2 ON T1.id = T2.friend_id JOIN highschooler AS T3 ON T2.friend_id = T3.id WHERE T1.grade = T3.grade", "neighbourhood"),
    (True, "spider_world_1", "What is the population of the towns in Brazil?",
     "SELECT c.name, c.population FROM city c JOIN country k ON c.countrycode = k.code WHERE k.name = 'Brazil'", "towns"),
    (True, "spider_singer", "How many songs did each singer release?",
     "SELECT s.name, COUNT(*) FROM singer s JOIN song g ON g.singer_id = s.singer_id GROUP BY s.name", "release"),
    (True, "spider_poker_player", "List the winnings of each poker player.",
     "SELECT p.name, pp.earnings FROM poker_player pp JOIN people p ON p.people_id = pp.people_id", "winnings"),
    (True, "spider_orchestra", "List the conductors with their years of work.", "SELECT name, year_of_work FROM conductor", "work"),
    (True, "spider_flight_2", "How many flights depart from each city?",
     "SELECT city, COUNT(*) FROM airports JOIN flights ON flights.sourceairport = airports.airportcode GROUP BY city", "depart"),
    (True, "spider_concert_singer", "What is the average age of the singers from each country?", "SELECT country, AVG(age) FROM singer GROUP BY country", "singer_age"),
    (True, "spider_course_teach", "Which teachers instruct each course?",
     "SELECT t.name, c.course FROM course_arrange a JOIN teacher t ON t.teacher_id = a.teacher_id JOIN course c ON c.course_id = a.course_id", "instructor"),
]

WORDINGS = {
    "A": ("Other readings of the question, written independently, looked for names the database does not have",
          lambda n: [f'a reading of the question reads "{n}", which no table, view, schema or column of the database has or nearly names']),
    "B": ("Another reading of the question, written independently, used a column that does not exist in the schema above",
          lambda n: [f'it reads a column "{n}", and no table of the schema has a column or table named "{n}" or anything close: it does not run']),
    "C": ("What the question asks for was looked for by name, and the schema above has no such name",
          lambda n: [f'"{n}": no table or column of the schema above is named so; another reading of the question wrote a column "{n}", which does not exist']),
    "D": ("Another reading of the question, written independently, used a column that does not exist in the schema above",
          lambda n: [f'it reads "{n}", and no table of the schema has a column or table named "{n}" or anything close: it does not run']),
}

def tally(key, cases, lead, found):
    """Votes on every case under one wording, each printed, then the wording's figures."""
    right = {True: 0, False: 0}
    for answerable, db, question, sql, name in cases:
        v = vote(db, question, sql, lead, found(name))
        ok = v.get("answerable") == answerable
        right[answerable] += ok
        print(f"  {key} {'answerable' if answerable else 'unanswerable'} {'right' if ok else 'WRONG'}: {question} -> {json.dumps(v)}")
    n_un = sum(1 for c in cases if not c[0])
    print(f"{key}: unanswerable voted no {right[False]}/{n_un}; answerable voted yes {right[True]}/{len(cases) - n_un}")


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(WORDINGS)
    print("command: python3 bench/vote_wording.py " + " ".join(chosen))
    for key in chosen:
        lead, found = WORDINGS[key]
        tally(key, CASES, lead, found)
