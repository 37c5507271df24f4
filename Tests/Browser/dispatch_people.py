"""The admin's People tab on the dispatcher's page, used as an admin would at 360 px and on a desktop: add a rider
(the invitation goes out), find them, suspend them, read their sign-ins. A dispatcher does not see the tab.
dispatch_page_test.py runs it after the shifts."""

import uuid

from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, Server, browser, check, check_contrast, mint, wait_for


def people_tab(width, height, name):
    server = Server()
    driver = None
    try:
        driver = browser(width, height)
        dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Dana Dispatcher")
        driver.get(server.base + "/dispatch#token=" + dispatcher)
        wait_for(f"{name}: a dispatcher's map opens", lambda: driver.find_element(By.ID, "app").is_displayed())
        check(not driver.find_element(By.ID, "tab-people").is_displayed(), f"{name}: a dispatcher has no People tab")
        admin = mint("admin", str(uuid.uuid4()), name="Avery Admin")
        driver.get(server.base + "/dispatch#token=" + admin)
        wait_for(f"{name}: an admin has a People tab", lambda: driver.find_element(By.ID, "tab-people").is_displayed())
        driver.find_element(By.XPATH, "//button[@role='tab'][normalize-space()='People']").click()
        wait_for(f"{name}: the People view opens", lambda: driver.find_element(By.ID, "view-people").is_displayed())
        driver.find_element(By.XPATH, "//form[@id='person-form']//label[normalize-space()='Name']/following-sibling::input[1]").send_keys(
            "Nina Costa")
        driver.find_element(By.XPATH, "//form[@id='person-form']//label[normalize-space()='Phone number']/following-sibling::input[1]") \
            .send_keys("+377 99 44 55 61")
        driver.find_element(By.XPATH, "//button[normalize-space()='Add and send the invitation']").click()
        wait_for(f"{name}: the rider is added and invited",
                 lambda: "invitation is on its way to +37799445561" in driver.find_element(By.ID, "person-error").text)
        wait_for(f"{name}: and listed", lambda: "Nina Costa" in driver.find_element(By.ID, "people").text)
        driver.find_element(By.ID, "person-name").send_keys("Nina Twin")
        driver.find_element(By.ID, "person-phone").send_keys("+37799445561")
        driver.find_element(By.XPATH, "//button[normalize-space()='Add and send the invitation']").click()
        wait_for(f"{name}: a phone someone has is refused in words",
                 lambda: "already has this phone" in driver.find_element(By.ID, "person-error").text)
        driver.execute_script("window.confirm = () => true")
        driver.find_element(By.XPATH, "//button[normalize-space()='Suspend Nina Costa']").click()
        wait_for(f"{name}: suspended, with a way back",
                 lambda: driver.find_elements(By.XPATH, "//button[normalize-space()='Reinstate Nina Costa']"))
        driver.find_element(By.XPATH, "(//button[normalize-space()='Sign-ins'])[1]").click()
        wait_for(f"{name}: the sign-ins are shown", lambda: "Never signed in" in driver.find_element(By.ID, "people").text)
        driver.execute_script("document.getElementById('view-people').scrollIntoView()")
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-people-{width}x{height}.png")
        check_contrast(driver, f"{name} people")
        errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                  and "409" not in entry["message"]]
        check(not errors, f"{name}: no errors in the console but the refused phone's 409 ({errors[:2]})")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
