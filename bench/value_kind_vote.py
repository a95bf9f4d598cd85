#!/usr/bin/env python3
"""Can the local model tell a value of a column's kind from a thing of another kind? A candidate
vote, measured and not built (forty-fifth session).

    python3 bench/value_kind_vote.py [A B]     (cluster and chat server running, scripts/cluster.sh, scripts/llm.sh)

An unanswerable question that names a thing the database does not record ("Which restaurants have
a Michelin star?") is often answered by a query that compares a column with the name
(`restaurant_type.restypename = 'Michelin'`); no row holds it, the result is empty, and the run ends
`ok` or `unverified`. By the issue's own rule an absent value of the column's kind is answerable
("orders from Atlantis": no rows), so only the kind tells the two apart. Each case shows the model
the question, the column, five of its stored values (read now) and the value compared, at
temperature 0 under a one-field JSON schema. Twelve unanswerable cases are recorded misses of the
held-out sets; twelve answerable ones are values of Benchmark 2's recorded answerable runs whose
result was empty (three of them are in fact stored, in another case or spacing) and three planted
absent values of the column's kind (Atlantis, Springfield, Narnia). Figures: per wording, the
unanswerable cases voted another kind and the answerable ones voted the same kind.
"""
import json, os, subprocess, sys, urllib.request
os.environ.update(PGHOST=os.environ.get("PGHOST", "127.0.0.1"), PGPORT=os.environ.get("PGPORT", "54815"), PGUSER=os.environ.get("PGUSER", "postgres"))
CHAT = "http://127.0.0.1:%s/v1/chat/completions" % os.environ.get("NL2SQL_CHAT_PORT", "18081")
CASES = [
 (False,"train_restaurant_1","Which restaurants have a Michelin star?","restaurant_type","restypename","Michelin"),
 (False,"train_epinions_1","Which of the reviewed items are sold on Amazon?","item","title","Amazon"),
 (False,"train_company_employee","Which of these companies are listed on the New York Stock Exchange?","company","name","New York Stock Exchange"),
 (False,"train_book_2","Which writers have won the Nobel Prize in Literature?","book","writer","Nobel Prize in Literature"),
 (False,"train_county_public_safety","Which counties are on the Pacific coast?","county_public_safety","location","Pacific"),
 (False,"train_entertainment_awards","Which festivals take place in European capital cities?","festival_detail","location","European capital cities"),
 (False,"train_icfp_1","Which institutions are Ivy League universities?","inst","name","Ivy League"),
 (False,"train_movie_1","Which directors were born in Europe?","movie","director","European"),
 (False,"train_manufactory_1","Which manufacturers are headquartered in the European Union?","manufacturers","headquarter","Europe"),
 (False,"train_wedding","Which churches are Catholic?","church","organized_by","Catholic"),
 (False,"train_farm","Which cities are provincial capitals?","city","status","Province"),
 (False,"spider_flight_2","Which airports are in cities that have hosted the Olympic Games?","airports","city","Olympic"),
 (True,"spider_flight_2","What are flight numbers of flights arriving at City \"Aberdeen\"?","flights","destairport","Aberdeen"),
 (True,"spider_flight_2","Which airlines have a flight with source airport AHD?","flights","sourceairport","AHD"),
 (True,"train_student_1","What are the last names of the teachers who teach the student called GELL TAMI?","list","firstname","GELL"),
 (True,"train_music_2","What are the types of vocals that the musician with the last name 'Heilo' played?","band","lastname","Heilo"),
 (True,"train_shop_membership","What are the card numbers of members from Kentucky?","member","hometown","Kentucky"),
 (True,"train_customers_campaigns_ecommerce","Show the names of customers having an order with shipping method FedEx and order status Paid.","customer_orders","shipping_method_code","FedEx"),
 (True,"train_storm_record","Find the name of the storm that affected both Afghanistan and Albania regions.","region","region_name","Afghanistan"),
 (True,"train_twitter_1","Find the names of the users whose number of followers is greater than that of the user named 'Tyler Swift'.","user_profiles","name","Tyler Swift"),
 (True,"spider_world_1","Which cities are in Atlantis?","country","name","Atlantis"),
 (True,"train_bike_1","How many trips started at the Springfield station?","station","name","Springfield"),
 (True,"train_formula_1","Which races were held in Narnia?","circuits","country","Narnia"),
 (True,"train_music_2","Which instruments were played on the song 'Der Kapitan'?","songs","title","Der Kapitan"),
]
def sample(db,t,c):
    out=subprocess.run(["psql","-d",db,"-Atc",f'select distinct "{c}"::text from "{t}" where "{c}" is not null limit 5'],capture_output=True,text=True)
    return [l for l in out.stdout.strip().split("\n") if l]
WORDINGS = {
    # asks whether the value is of the kind, or another kind the database does not record
    "A": lambda q, t, c, v, vals: (f"Question: {q}\n\nThe query written for it compares {t}.{c} with '{v}', and no row of {t}.{c} holds that value. "
                                   f"Some values {t}.{c} holds: " + ", ".join("'" + x + "'" for x in vals) + ".\n\n"
                                   f"Is '{v}' the same kind of thing as those values, so that the database simply has no such row? "
                                   f"Or is it another kind of thing, which {t}.{c} does not record, so that answering needs knowledge the database does not store?\n"
                                   'Reply in JSON: {"same_kind": true or false}'),
    # asks only whether the value could be one more of the column's
    "B": lambda q, t, c, v, vals: (f"Question: {q}\n\nA column {t}.{c} holds values such as " + ", ".join("'" + x + "'" for x in vals) + ".\n\n"
                                   f"Could '{v}' be one more value of {t}.{c}, of the same kind as those (a value the column could hold, even if no row holds it now)?\n"
                                   'Reply in JSON: {"same_kind": true or false}'),
}


def vote(user):
    body = {"model": "default", "messages": [{"role": "system", "content": "You are an expert PostgreSQL analyst."}, {"role": "user", "content": user}],
            "temperature": 0, "max_tokens": 30,
            "response_format": {"type": "json_schema", "json_schema": {"name": "kind", "strict": True,
                                "schema": {"type": "object", "properties": {"same_kind": {"type": "boolean"}}, "required": ["same_kind"]}}}}
    req = urllib.request.Request(CHAT, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.loads(json.load(urllib.request.urlopen(req, timeout=300))["choices"][0]["message"]["content"])["same_kind"]


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(WORDINGS)
    print("command: python3 bench/value_kind_vote.py " + " ".join(chosen))
    for name in chosen:
        good = {True: 0, False: 0}
        total = {True: 0, False: 0}
        for answerable, db, q, t, c, v in CASES:
            vals = sample(db, t, c)
            same = vote(WORDINGS[name](q, t, c, v, vals))
            total[answerable] += 1
            good[answerable] += same == answerable
            print(f"  {name} {'answerable' if answerable else 'unanswerable'} voted {'same kind' if same else 'another kind'}: {db} {t}.{c} '{v}'", flush=True)
        print(f"wording {name}: unanswerable voted another kind {good[False]}/{total[False]}; answerable voted the same kind {good[True]}/{total[True]}")
