/*
 * t-selfref: questions that refer to their source text are found in many
 * languages, with word boundaries and '*' endings honoured, and real user
 * questions that merely share a word ("the author of Dune", "text color")
 * are not.
 */
#include "test-lib.h"
#include "text/selfref.h"

#include <stdlib.h>
#include <string.h>

static void refers(const char *q, const char *want_lang)
{
	const char *lang = NULL;
	const char *p = text_source_reference(q, strlen(q), &lang);

	ok(p != NULL, "refers to its source: %s", q);
	if (p && want_lang)
		is_str(lang, want_lang, "found in the right list");
}

static void stands_alone(const char *q)
{
	const char *p = text_source_reference(q, strlen(q), NULL);

	ok(p == NULL, "stands alone: %s%s%s", q, p ? " (matched: " : "", p ? p : "");
	if (p)
		test_diag("matched '%s'", p);
}

int main(void)
{
	/* English, in every shape the prompts forbid */
	refers("According to the passage, how often must keys rotate?", "en");
	refers("What does THE PASSAGE say about retries?", "en");
	refers("What does the text mention about webhooks?", "en");
	refers("What timeout is described above?", "en");
	refers("Title: Security - how do I rotate keys?", "en");
	refers("What does the author suggest for caching?", "en");
	refers("In this document, which port is used?", "en");
	refers("Which setting does the document mentions?", "en");   /* '*' ending */
	refers("In the document above, which port is used?", "en");
	refers("In the above document, which port is used?", "en");
	refers("What does the text say about retries and timeouts?", "en");
	refers("What does the document say about keys and rotation?", "en");
	refers("Which limit is given in this passage?", "en");
	refers("What port is named in this excerpt?", "en");
	refers("What does this section recommend for caching?", "en");
	refers("How many retries does the text above allow?", "en");
	/* other languages */
	refers("Was sagt der Text über die Rechnung? Laut dem Text ...", "de");
	refers("Welche Option wird in diesem Abschnitt beschrieben?", "de");
	refers("Selon le texte, quel port faut-il ouvrir ?", "fr");
	refers("¿Según el texto, cuántos reintentos hay?", "es");
	refers("Secondo il testo, quale porta si usa?", "it");
	refers("De acordo com o documento, qual é o limite?", "pt");
	refers("Согласно тексту, какой порт нужен?", "ru");
	refers("この文章によると、ポートは何番ですか？", "ja");
	refers("根据文章，需要打开哪个端口？", "zh");
	refers("이 글에서 말하는 포트는 무엇인가요?", "ko");
	refers("Metne göre hangi port kullanılır?", "tr");
	refers("Σύμφωνα με το κείμενο, ποια θύρα;", "el");
	refers("标题：安全 如何轮换密钥", "zh");   /* fullwidth colon, NFKC */
	/* real questions that share words with the phrases */
	stands_alone("Who is the author of Dune?");
	stands_alone("How do I change the text color of a button?");
	stands_alone("What is the title of the third Harry Potter book?");
	stands_alone("How do I share a document with my team?");
	stands_alone("What does the Text Encoding API do?");
	stands_alone("What does the textarea element say to screen readers?");
	stands_alone("What does the document.querySelector method return?");
	stands_alone("How do I select all text in a document?");
	stands_alone("How do I find a word in the document I am editing?");
	stands_alone("Which passageway connects the two terminals?");   /* no word boundary */
	stands_alone("subtitle: how to add captions");                  /* 'title:' inside a word */
	stands_alone("Wer ist der Autor von Faust?");
	stands_alone("如何在中文中输入标点符号？");
	stands_alone("");
	return test_done();
}
