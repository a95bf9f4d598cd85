#!/usr/bin/env python3
"""The model's vote on a query that fails on a name the database has nowhere (`ask::scope::
nowhere_scope`, `Found::NowhereNames`), on recorded and planted cases.

    python3 bench/vote_nowhere.py [N F G]     (cluster and chat server running, scripts/cluster.sh, scripts/llm.sh)

Unanswerable cases: questions of the held-out sets whose runs ended in error on such a name, with
the query and the name their runs recorded (a question naming what no stored value holds,
"made by Qualcomm", is left out: the scope leaves it to end in error unasked). Answerable cases:
answerable questions of the `spider` dev databases with a planted failing query that reads a
name after the question that the schema spells otherwise, as a model's mistake would. The
prompt is `prompts::answer_scope` (the schema as CREATE TABLE lines, temperature 0, the vote's
JSON schema; `vote_wording.vote`) under three leads: N, the failure said plainly (the wording a
`Found` variant for this finding had before it was dropped), F and G, the failure said as a guess
the schema may name otherwise. Figures per lead: unanswerable cases voted no, answerable ones
voted yes.

At 2026-12-06 (Qwen2.5-Coder-1.5B): N: unanswerable voted no 5/5, answerable voted yes 0/7: told
that the query fails on a name the schema lacks, the model says the database cannot answer,
whatever the question. F and G turned it the other way: no 0/5, yes 7/7 and 4/7.
The vote tells nothing here, so `nowhere_scope` decides from the evidence alone (a name near
none, a word of the question that links to nothing, no unheld name), which Benchmark 2's 278
recorded answerable error runs never meet.
"""
import sys
from vote_wording import tally

LEADS = {
    "N": ("That query does not run, and no fix or repair made it run: it uses a column that does not exist in the schema above",
          lambda n: [f'it reads "{n}", and no table of the schema has a column or table named "{n}" or anything close: it does not run']),
    "F": ("A first attempt at the query guessed a name that is not in the schema above; the schema may hold what is asked under another name",
          lambda n: [f'the attempt guessed "{n}", which is not a table or column of the schema']),
    "G": ("The name the query reads for what the question asks is not in the schema above",
          lambda n: [f'"{n}" is not in the schema: look for a table or column that holds what "{n}" was meant to hold']),
}


# (answerable?, database, question, the failing query, the name no table has)
CASES = [
    (False, "train_small_bank_1", "When was each account opened?",
     "SELECT accounts.custid, accounts.name, checking.open_date FROM accounts JOIN checking ON accounts.custid = checking.custid ORDER BY accounts.custid", "open_date"),
    (False, "spider_concert_singer", "How long did each concert last?",
     "SELECT concert_name, MAX(end_time) - MIN(start_time) AS duration FROM concert GROUP BY concert_name", "end_time"),
    (False, "train_twitter_1", "How many times was each tweet retweeted?",
     "SELECT COUNT(*) AS retweet_count, tweet_id FROM tweets WHERE tweet_id IS NOT NULL GROUP BY tweet_id", "tweet_id"),
    (False, "train_icfp_1", "When was each paper published?", "SELECT p.title, p.pubdate FROM papers p", "pubdate"),
    (False, "train_protein_institute", "Which institutions have produced a Nobel laureate?",
     "SELECT DISTINCT institution FROM institution WHERE institution_id IN (SELECT institution_id FROM protein WHERE institution_id IN (SELECT institution_id FROM award WHERE award_type = 'Nobel'))", "award"),
    (True, "spider_world_1", "What is the population of the towns in Brazil?",
     "SELECT c.name, c.inhabitants FROM city c JOIN country k ON c.countrycode = k.code WHERE k.name = 'Brazil'", "inhabitants"),
    (True, "spider_poker_player", "List the winnings of each poker player.",
     "SELECT p.name, pp.winnings FROM poker_player pp JOIN people p ON p.people_id = pp.people_id", "winnings"),
    (True, "spider_orchestra", "How long has each conductor worked?", "SELECT name, tenure FROM conductor", "tenure"),
    (True, "spider_flight_2", "How many flights depart from each city?",
     "SELECT departure_city, COUNT(*) FROM flights GROUP BY departure_city", "departure_city"),
    (True, "spider_course_teach", "Which teachers instruct each course?",
     "SELECT t.name, c.course FROM course c JOIN teacher t ON t.teacher_id = c.instructor", "instructor"),
    (True, "spider_singer", "When was each singer born?", "SELECT name, date_of_birth FROM singer", "date_of_birth"),
    (True, "spider_employee_hire_evaluation", "How much bonus was awarded to each employee?",
     "SELECT e.name, v.bonus_amount FROM employee e JOIN evaluation v ON v.employee_id = e.employee_id", "bonus_amount"),
]

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(LEADS)
    print("command: python3 bench/vote_nowhere.py " + " ".join(chosen))
    for key in chosen:
        lead, found = LEADS[key]
        tally(key, CASES, lead, found)
